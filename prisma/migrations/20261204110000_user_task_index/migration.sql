-- Hand-written: an AgentDojo run's task id goes on past its user task under an attack
-- (`banking/user_task_13/important_instructions/injection_task_7`, so that pass^k tells the variants
-- apart), and a ground-truth trace links to its runs by the first two parts (`banking/user_task_13`).
-- The index on the whole task id served only that link: it is replaced, not added to.
DROP INDEX IF EXISTS "evaluation_runs_task_id_idx";
CREATE INDEX "evaluation_runs_user_task_idx" ON "evaluation_runs" ((split_part("task_id", '/', 1) || '/' || split_part("task_id", '/', 2)));

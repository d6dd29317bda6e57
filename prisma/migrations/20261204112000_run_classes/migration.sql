-- Hand-written: an ingested run's class (seed 003's five, lib/replay/rules/classification.ts), which
-- the declared exclusion rule treats as it says, and why it has it. Existing runs are completed.
ALTER TABLE "evaluation_runs" ADD COLUMN "run_class" TEXT NOT NULL DEFAULT 'completed';
ALTER TABLE "evaluation_runs" ADD COLUMN "run_class_evidence" TEXT;
ALTER TABLE "evaluation_runs" ADD CONSTRAINT "evaluation_runs_run_class_check" CHECK ("run_class" IN ('completed', 'agent_failure', 'protocol_stop', 'environment_failure', 'missing_evidence'));
-- The runs of other classes are few: found by an index of their own, however many runs are completed.
CREATE INDEX "evaluation_runs_classed_idx" ON "evaluation_runs" ("evaluation_id", "run_class") WHERE "run_class" <> 'completed';

-- DropIndex
DROP INDEX "runs_natural_key";

-- CreateIndex
CREATE UNIQUE INDEX "runs_natural_key" ON "runs"("experiment_id", "condition", "schedule_id", "delay_ms", "repetition", "role", "task_id");


-- Hand-written: an experiment's config lists the traces it replays (`traces`, issue 11) where it held
-- one (`trace`): stored experiments keep what they replayed.
UPDATE "experiments" SET "config" = ("config" - 'trace') || jsonb_build_object('traces', jsonb_build_array("config"->'trace'))
 WHERE "config" ? 'trace';

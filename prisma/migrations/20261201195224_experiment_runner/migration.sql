-- AlterTable
ALTER TABLE "experiments" ADD COLUMN     "runner_heartbeat_at" TIMESTAMPTZ(3),
ADD COLUMN     "runner_host" TEXT,
ADD COLUMN     "runner_pid" INTEGER;


-- A new final state: an in-process replay killed mid-grid (its stored runs are kept).
ALTER TABLE "experiments" DROP CONSTRAINT "experiments_state_check";
ALTER TABLE "experiments" ADD CONSTRAINT "experiments_state_check"
  CHECK ("state" IN ('queued', 'running', 'completed', 'failed', 'cancelled', 'interrupted'));
-- The runner of an in-process replay: its three columns are set together or not at all.
ALTER TABLE "experiments" ADD CONSTRAINT "experiments_runner_check"
  CHECK (("runner_host" IS NULL) = ("runner_pid" IS NULL) AND ("runner_host" IS NULL) = ("runner_heartbeat_at" IS NULL));

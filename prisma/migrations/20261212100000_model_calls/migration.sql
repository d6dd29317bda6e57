-- AlterTable
ALTER TABLE "evaluation_runs" ADD COLUMN     "input_tokens" BIGINT,
ADD COLUMN     "model_calls" INTEGER,
ADD COLUMN     "output_tokens" BIGINT;

-- CreateTable
CREATE TABLE "evaluation_run_model_calls" (
    "run_id" BIGINT NOT NULL,
    "position" INTEGER NOT NULL,
    "model" TEXT,
    "started_at" TIMESTAMPTZ(3),
    "duration_ms" DOUBLE PRECISION,
    "input_tokens" INTEGER,
    "output_tokens" INTEGER,
    "error" TEXT,
    "message_position" INTEGER,

    CONSTRAINT "evaluation_run_model_calls_pkey" PRIMARY KEY ("run_id","position")
);

-- Hand-written. A run's model calls (an Inspect model event, an OTLP chat span, the record's modelCalls), one row a
-- call, copied with a new batch's other detached children before the audit lock: the run key is checked at commit.
ALTER TABLE "evaluation_run_model_calls" ADD CONSTRAINT "evaluation_run_model_calls_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "evaluation_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE DEFERRABLE INITIALLY DEFERRED;

-- The run's sums are written with the run (lib/evaluations/ingest/rows.ts): the lists and exports read them from the
-- run's row, and the summary's totals read the runs with model calls through this index (nothing for an evaluation
-- without any), never the calls.
CREATE INDEX "evaluation_runs_model_calls_idx" ON "evaluation_runs" ("evaluation_id") INCLUDE ("input_tokens", "output_tokens", "model_calls")
  WHERE "model_calls" IS NOT NULL;

-- A live run's model calls arrive as events (an OTLP chat span's, or the live-run routes').
ALTER TABLE "live_run_events" DROP CONSTRAINT "live_run_events_type_check";
ALTER TABLE "live_run_events" ADD CONSTRAINT "live_run_events_type_check" CHECK ("type" IN ('effect_requested', 'effect_status', 'touch', 'reset', 'model_call'));

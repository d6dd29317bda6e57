-- A run's link to the library trace of its call sequence moves out of the run's wide row (issue 25 item 1).
-- Setting evaluation_runs.trace_id wrote a second version of a ~550-byte row and an entry in each of its
-- ten indexes, and ran the statement triggers that recount runs and tools: ~100 us a run, 528 s for the
-- traces of 1,000,000 runs. A link row is ~40 bytes with three indexes and no trigger.
CREATE TABLE "evaluation_run_traces" (
    "run_id" BIGINT NOT NULL,
    "evaluation_id" UUID NOT NULL,
    "trace_id" UUID,
    CONSTRAINT "evaluation_run_traces_pkey" PRIMARY KEY ("run_id")
);

-- Every run with calls gets its row, linked or not yet, as the ingest writes them from now on.
INSERT INTO "evaluation_run_traces" ("run_id", "evaluation_id", "trace_id")
SELECT "id", "evaluation_id", "trace_id" FROM "evaluation_runs"
 WHERE jsonb_typeof("tool_calls") = 'array' AND "tool_calls" <> '[]'::jsonb;

-- Copied with a new batch's other detached children before the audit lock: the run key is checked at commit.
ALTER TABLE "evaluation_run_traces" ADD CONSTRAINT "evaluation_run_traces_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "evaluation_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE "evaluation_run_traces" ADD CONSTRAINT "evaluation_run_traces_trace_id_fkey" FOREIGN KEY ("trace_id") REFERENCES "traces"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- The runs a trace pass looks for (lib/evaluations/record-traces.ts), in run order, without reading the linked ones.
CREATE INDEX "evaluation_run_traces_untraced_idx" ON "evaluation_run_traces"("evaluation_id", "run_id") WHERE "trace_id" IS NULL;
-- A trace's runs (the library's counts) and an evaluation's links to one trace (a policy version's unlink).
CREATE INDEX "evaluation_run_traces_trace_idx" ON "evaluation_run_traces"("trace_id", "evaluation_id") WHERE "trace_id" IS NOT NULL;

-- Its foreign key, its index and the partial index evaluation_runs_untraced_idx go with it.
ALTER TABLE "evaluation_runs" DROP COLUMN "trace_id";

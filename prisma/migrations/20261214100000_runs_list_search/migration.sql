-- The runs list: a column for the effects open at scoring, an index for each sort (value, id) and the text search.

-- AlterTable
ALTER TABLE "evaluation_runs" ADD COLUMN "open_effects" INTEGER NOT NULL DEFAULT 0;

-- DropIndex
DROP INDEX "evaluation_runs_evaluation_id_analysis_unit_idx";

-- CreateIndex
CREATE INDEX "evaluation_runs_evaluation_id_analysis_unit_id_idx" ON "evaluation_runs"("evaluation_id", "analysis_unit", "id");

-- CreateIndex
CREATE INDEX "evaluation_runs_evaluation_id_started_at_id_idx" ON "evaluation_runs"("evaluation_id", "started_at", "id");

-- CreateIndex
CREATE INDEX "evaluation_runs_evaluation_id_score_id_idx" ON "evaluation_runs"("evaluation_id", "score", "id");

-- CreateIndex
CREATE INDEX "evaluation_runs_evaluation_id_endpoint_label_id_idx" ON "evaluation_runs"("evaluation_id", "endpoint_label", "id");

-- CreateIndex
CREATE INDEX "evaluation_runs_evaluation_id_finality_id_idx" ON "evaluation_runs"("evaluation_id", "finality", "id");

-- CreateIndex
CREATE INDEX "evaluation_runs_evaluation_id_open_effects_id_idx" ON "evaluation_runs"("evaluation_id", "open_effects", "id");

-- Runs stored before this column: their effects' statuses at scoring, as ingestion now counts them (lib/evaluations/ingest/rows.ts).
UPDATE evaluation_runs r SET open_effects = o.n
  FROM (SELECT run_id, count(*)::int AS n FROM evaluation_effects WHERE status_at_scoring IN ('pending', 'unknown') GROUP BY run_id) o
 WHERE r.id = o.run_id;

-- A run's duration in milliseconds: from its start to its end, or to its scoring when no end was recorded.
CREATE FUNCTION evaluation_run_duration_ms(started timestamptz, ended timestamptz, scored timestamptz) RETURNS bigint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT (extract(epoch FROM coalesce(ended, scored) - started) * 1000)::bigint $$;

-- How many tool calls a run's record holds.
CREATE FUNCTION evaluation_run_tool_call_count(calls jsonb) RETURNS integer
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT CASE WHEN jsonb_typeof(calls) = 'array' THEN jsonb_array_length(calls) ELSE 0 END $$;

-- The text of a JSON document's values (strings, numbers, booleans) without its keys or quoting: what a search reads.
CREATE FUNCTION json_search_text(doc jsonb) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT string_agg(v #>> '{}', ' ') FROM jsonb_path_query(doc, 'strict $.**') AS v WHERE jsonb_typeof(v) IN ('string', 'number', 'boolean')
  $$;

-- What a run's search matches in its own row: its id, its task, its tool calls' names, arguments and errors. (It calls no
-- function of this schema: PostgreSQL 17 on builds indexes with only pg_catalog on the search path.)
CREATE FUNCTION evaluation_run_search_text(external_id text, task_id text, calls jsonb) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT external_id || ' ' || task_id || ' ' || coalesce((SELECT string_agg(v #>> '{}', ' ') FROM jsonb_path_query(calls, 'strict $.**') AS v
                                                             WHERE jsonb_typeof(v) IN ('string', 'number', 'boolean')), '')
  $$;

CREATE INDEX "evaluation_runs_duration_idx" ON "evaluation_runs"("evaluation_id", evaluation_run_duration_ms("started_at", "ended_at", "scored_at"), "id");
CREATE INDEX "evaluation_runs_tool_calls_idx" ON "evaluation_runs"("evaluation_id", evaluation_run_tool_call_count("tool_calls"), "id");

-- Trigram indexes for `ILIKE '%text%'` (pg_trgm: PostgreSQL's contrib, in the embedded server, Debian's and the official image).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX "evaluation_runs_search_idx" ON "evaluation_runs" USING gin (evaluation_run_search_text("external_id", "task_id", "tool_calls") gin_trgm_ops);
CREATE INDEX "evaluation_run_messages_search_idx" ON "evaluation_run_messages" USING gin (json_search_text("messages") gin_trgm_ops);

-- Each unit's first run (a unit's id is its first run's id): units are labelled U1, U2, … within the evaluation by counting these.
CREATE INDEX "evaluation_runs_unit_first_runs_idx" ON "evaluation_runs"("evaluation_id", "id") WHERE "analysis_unit" = "id";

-- The runs search's trigram indexes read the text without its spaces and punctuation. pg_trgm splits words at every
-- character that is not a letter or digit, so "task-0" asked for the trigrams of "task" and "0", found in nearly every
-- run: a million candidates to recheck. Without separators, "task0" has trigrams ("sk0") as rare as the text. Every run
-- containing the text also contains it without separators, so the key finds a superset and the original text is then
-- checked exactly (lib/evaluations/evaluation-runs.ts). The expressions call no function of this schema inside a
-- function body: PostgreSQL 17 builds indexes with only pg_catalog on the search path.

DROP INDEX "evaluation_runs_search_idx";
DROP INDEX "evaluation_run_messages_search_idx";

CREATE INDEX "evaluation_runs_search_key_idx" ON "evaluation_runs"
  USING gin (regexp_replace(evaluation_run_search_text("external_id", "task_id", "tool_calls"), '[^[:alnum:]]+', '', 'g') gin_trgm_ops);
CREATE INDEX "evaluation_run_messages_search_key_idx" ON "evaluation_run_messages"
  USING gin (regexp_replace(json_search_text("messages"), '[^[:alnum:]]+', '', 'g') gin_trgm_ops);

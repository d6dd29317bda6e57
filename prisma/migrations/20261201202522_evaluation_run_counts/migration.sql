-- CreateTable
CREATE TABLE "evaluation_run_counts" (
    "evaluation_id" UUID NOT NULL,
    "finality" TEXT NOT NULL,
    "endpoint_label" TEXT NOT NULL,
    "unresolved_reason" TEXT NOT NULL,
    "unresolved_tool" TEXT NOT NULL,
    "disagreement" BOOLEAN NOT NULL,
    "has_terminal" BOOLEAN NOT NULL,
    "is_unit" BOOLEAN NOT NULL,
    "inherited_state" TEXT NOT NULL,
    "n" BIGINT NOT NULL,

    CONSTRAINT "evaluation_run_counts_pkey" PRIMARY KEY ("evaluation_id","finality","endpoint_label","unresolved_reason","unresolved_tool","disagreement","has_terminal","is_unit","inherited_state")
);


-- Hand-written: the counts are kept by statement-level triggers with transition tables, in the
-- writer's own transaction, so every writer (INSERT … SELECT, ON CONFLICT updates, COPY) keeps them
-- exact. Rows are upserted in key order so that concurrent writers lock them in the same order.
-- Deltas of an evaluation being deleted are skipped (its counts go with it).
-- (Prisma's statement splitter cuts at every semicolon: the bodies spell it \073.)
CREATE FUNCTION evaluation_run_counts_add() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN INSERT INTO evaluation_run_counts AS c (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state, n) SELECT r.evaluation_id, r.finality, r.endpoint_label, coalesce(r.unresolved_reason, ''''), coalesce(r.unresolved_tool, ''''), r.disagreement, r.terminal_label IS NOT NULL, coalesce(r.analysis_unit = r.id, true), r.inherited_state, count(*) FROM new_runs r WHERE EXISTS (SELECT 1 FROM evaluations e WHERE e.id = r.evaluation_id) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9 ON CONFLICT (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state) DO UPDATE SET n = c.n + EXCLUDED.n\073 RETURN NULL\073 END';
CREATE FUNCTION evaluation_run_counts_remove() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN INSERT INTO evaluation_run_counts AS c (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state, n) SELECT r.evaluation_id, r.finality, r.endpoint_label, coalesce(r.unresolved_reason, ''''), coalesce(r.unresolved_tool, ''''), r.disagreement, r.terminal_label IS NOT NULL, coalesce(r.analysis_unit = r.id, true), r.inherited_state, -count(*) FROM old_runs r WHERE EXISTS (SELECT 1 FROM evaluations e WHERE e.id = r.evaluation_id) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9 ON CONFLICT (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state) DO UPDATE SET n = c.n + EXCLUDED.n\073 RETURN NULL\073 END';
CREATE FUNCTION evaluation_run_counts_change() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN INSERT INTO evaluation_run_counts AS c (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state, n) SELECT r.evaluation_id, r.finality, r.endpoint_label, coalesce(r.unresolved_reason, ''''), coalesce(r.unresolved_tool, ''''), r.disagreement, r.terminal_label IS NOT NULL, coalesce(r.analysis_unit = r.id, true), r.inherited_state, -count(*) FROM old_runs r WHERE EXISTS (SELECT 1 FROM evaluations e WHERE e.id = r.evaluation_id) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9 ON CONFLICT (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state) DO UPDATE SET n = c.n + EXCLUDED.n\073 INSERT INTO evaluation_run_counts AS c (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state, n) SELECT r.evaluation_id, r.finality, r.endpoint_label, coalesce(r.unresolved_reason, ''''), coalesce(r.unresolved_tool, ''''), r.disagreement, r.terminal_label IS NOT NULL, coalesce(r.analysis_unit = r.id, true), r.inherited_state, count(*) FROM new_runs r WHERE EXISTS (SELECT 1 FROM evaluations e WHERE e.id = r.evaluation_id) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9 ON CONFLICT (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state) DO UPDATE SET n = c.n + EXCLUDED.n\073 RETURN NULL\073 END';
CREATE TRIGGER evaluation_runs_counts_insert AFTER INSERT ON evaluation_runs REFERENCING NEW TABLE AS new_runs FOR EACH STATEMENT EXECUTE FUNCTION evaluation_run_counts_add();
CREATE TRIGGER evaluation_runs_counts_update AFTER UPDATE ON evaluation_runs REFERENCING OLD TABLE AS old_runs NEW TABLE AS new_runs FOR EACH STATEMENT EXECUTE FUNCTION evaluation_run_counts_change();
CREATE TRIGGER evaluation_runs_counts_delete AFTER DELETE ON evaluation_runs REFERENCING OLD TABLE AS old_runs FOR EACH STATEMENT EXECUTE FUNCTION evaluation_run_counts_remove();
ALTER TABLE "evaluation_run_counts" ADD CONSTRAINT "evaluation_run_counts_evaluation_id_fkey" FOREIGN KEY ("evaluation_id") REFERENCES "evaluations"("id") ON DELETE CASCADE;

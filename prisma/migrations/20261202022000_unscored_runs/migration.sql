-- Unscored runs (issue 11): an imported sample with no score (Inspect's popularity log) is stored
-- and shown, never dropped, with finality `unscored`, no scoring time and no endpoint label, and the
-- reason it has none. It is in no rate's population (lib/evaluations/summary.ts counts it on its own).
ALTER TABLE "evaluation_runs" ALTER COLUMN "scored_at" DROP NOT NULL;
ALTER TABLE "evaluation_runs" ALTER COLUMN "endpoint_label" DROP NOT NULL;
ALTER TABLE "evaluation_runs" ADD COLUMN "unscored_reason" TEXT;

-- Hand-written: an unscored run, and only an unscored run, lacks a scoring time and an endpoint label, and says why.
ALTER TABLE "evaluation_runs" DROP CONSTRAINT "evaluation_runs_finality_check";
ALTER TABLE "evaluation_runs" ADD CONSTRAINT "evaluation_runs_finality_check" CHECK ("finality" IN ('final', 'unresolved', 'unscored'));
ALTER TABLE "evaluation_runs" DROP CONSTRAINT "evaluation_runs_unresolved_reason_check";
ALTER TABLE "evaluation_runs" ADD CONSTRAINT "evaluation_runs_unresolved_reason_check" CHECK (
  ("finality" = 'final' AND "unresolved_reason" IS NULL) OR
  ("finality" = 'unscored' AND "unresolved_reason" IS NULL) OR
  ("finality" = 'unresolved' AND "unresolved_reason" IN ('pending_at_scoring', 'resolved_after_scoring', 'never_resolved', 'unverifiable', 'unclassified_tool')));
ALTER TABLE "evaluation_runs" ADD CONSTRAINT "evaluation_runs_unscored_check" CHECK (
  CASE WHEN "finality" = 'unscored'
       THEN "scored_at" IS NULL AND "endpoint_label" IS NULL AND "terminal_label" IS NULL AND "unscored_reason" IS NOT NULL
       ELSE "scored_at" IS NOT NULL AND "endpoint_label" IS NOT NULL AND "unscored_reason" IS NULL END);

-- The trigger-kept counts key an unscored run's missing endpoint label as ''.
-- (Prisma's statement splitter cuts at every semicolon: the bodies spell it \073.)
CREATE OR REPLACE FUNCTION evaluation_run_counts_add() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN INSERT INTO evaluation_run_counts AS c (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state, n) SELECT r.evaluation_id, r.finality, coalesce(r.endpoint_label, ''''), coalesce(r.unresolved_reason, ''''), coalesce(r.unresolved_tool, ''''), r.disagreement, r.terminal_label IS NOT NULL, coalesce(r.analysis_unit = r.id, true), r.inherited_state, count(*) FROM new_runs r WHERE EXISTS (SELECT 1 FROM evaluations e WHERE e.id = r.evaluation_id) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9 ON CONFLICT (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state) DO UPDATE SET n = c.n + EXCLUDED.n\073 RETURN NULL\073 END';
CREATE OR REPLACE FUNCTION evaluation_run_counts_remove() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN INSERT INTO evaluation_run_counts AS c (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state, n) SELECT r.evaluation_id, r.finality, coalesce(r.endpoint_label, ''''), coalesce(r.unresolved_reason, ''''), coalesce(r.unresolved_tool, ''''), r.disagreement, r.terminal_label IS NOT NULL, coalesce(r.analysis_unit = r.id, true), r.inherited_state, -count(*) FROM old_runs r WHERE EXISTS (SELECT 1 FROM evaluations e WHERE e.id = r.evaluation_id) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9 ON CONFLICT (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state) DO UPDATE SET n = c.n + EXCLUDED.n\073 RETURN NULL\073 END';
CREATE OR REPLACE FUNCTION evaluation_run_counts_change() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN INSERT INTO evaluation_run_counts AS c (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state, n) SELECT r.evaluation_id, r.finality, coalesce(r.endpoint_label, ''''), coalesce(r.unresolved_reason, ''''), coalesce(r.unresolved_tool, ''''), r.disagreement, r.terminal_label IS NOT NULL, coalesce(r.analysis_unit = r.id, true), r.inherited_state, -count(*) FROM old_runs r WHERE EXISTS (SELECT 1 FROM evaluations e WHERE e.id = r.evaluation_id) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9 ON CONFLICT (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state) DO UPDATE SET n = c.n + EXCLUDED.n\073 INSERT INTO evaluation_run_counts AS c (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state, n) SELECT r.evaluation_id, r.finality, coalesce(r.endpoint_label, ''''), coalesce(r.unresolved_reason, ''''), coalesce(r.unresolved_tool, ''''), r.disagreement, r.terminal_label IS NOT NULL, coalesce(r.analysis_unit = r.id, true), r.inherited_state, count(*) FROM new_runs r WHERE EXISTS (SELECT 1 FROM evaluations e WHERE e.id = r.evaluation_id) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9 ON CONFLICT (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state) DO UPDATE SET n = c.n + EXCLUDED.n\073 RETURN NULL\073 END';

-- An unscored run was never scored: its writes are read by no scoring of its own.
CREATE OR REPLACE FUNCTION evaluation_surfaces_refresh(eval uuid, only_surfaces text[]) RETURNS void LANGUAGE sql AS E'
  WITH writes AS (
    SELECT surface, run_id, at FROM evaluation_touches
     WHERE evaluation_id = eval AND op = ''write'' AND (only_surfaces IS NULL OR surface = ANY(only_surfaces))
    UNION ALL
    SELECT surface, run_id, requested_at FROM evaluation_effects
     WHERE evaluation_id = eval AND surface IS NOT NULL AND (only_surfaces IS NULL OR surface = ANY(only_surfaces))
  ), first_writes AS (
    SELECT surface, run_id, min(at) AS at FROM writes GROUP BY 1, 2
  ), reads AS (
    SELECT surface, run_id, at FROM evaluation_touches
     WHERE evaluation_id = eval AND op <> ''write'' AND (only_surfaces IS NULL OR surface = ANY(only_surfaces))
    UNION ALL
    SELECT w.surface, w.run_id, r.scored_at FROM first_writes w JOIN evaluation_runs r ON r.id = w.run_id AND r.scored_at IS NOT NULL
  ), last_reads AS (
    SELECT surface, run_id, max(at) AS at FROM reads GROUP BY 1, 2
  ), fw AS (
    SELECT surface, run_id, at, row_number() OVER (PARTITION BY surface ORDER BY at, run_id) AS k FROM first_writes
  ), lr AS (
    SELECT surface, run_id, at, row_number() OVER (PARTITION BY surface ORDER BY at DESC, run_id) AS k FROM last_reads
  ), named AS (
    SELECT surface, bool_or(public) AS public, bool_or(verified) AS verified FROM (
      SELECT surface, public, false AS verified FROM evaluation_touches WHERE evaluation_id = eval AND (only_surfaces IS NULL OR surface = ANY(only_surfaces))
      UNION ALL
      SELECT surface, public, false FROM evaluation_effects WHERE evaluation_id = eval AND surface IS NOT NULL AND (only_surfaces IS NULL OR surface = ANY(only_surfaces))
      UNION ALL
      SELECT surface, false, verified FROM evaluation_resets WHERE evaluation_id = eval AND (only_surfaces IS NULL OR surface = ANY(only_surfaces))
    ) AS every_mention GROUP BY surface
  ), stats AS (
    SELECT n.surface, f1.at AS first_write_at, f1.run_id AS first_writer, f2.at AS second_write_at,
           l1.at AS last_read_at, l1.run_id AS last_reader, l2.at AS second_read_at, n.public, n.verified
      FROM named n
      LEFT JOIN fw f1 ON f1.surface = n.surface AND f1.k = 1 LEFT JOIN fw f2 ON f2.surface = n.surface AND f2.k = 2
      LEFT JOIN lr l1 ON l1.surface = n.surface AND l1.k = 1 LEFT JOIN lr l2 ON l2.surface = n.surface AND l2.k = 2
  ), upserted AS (
    INSERT INTO evaluation_surfaces AS s (evaluation_id, surface, first_write_at, first_writer, second_write_at, last_read_at, last_reader, second_read_at, public, verified_resets)
    SELECT eval, surface, first_write_at, first_writer, second_write_at, last_read_at, last_reader, second_read_at, public, verified FROM stats ORDER BY surface
    ON CONFLICT (evaluation_id, surface) DO UPDATE
       SET first_write_at = EXCLUDED.first_write_at, first_writer = EXCLUDED.first_writer, second_write_at = EXCLUDED.second_write_at,
           last_read_at = EXCLUDED.last_read_at, last_reader = EXCLUDED.last_reader, second_read_at = EXCLUDED.second_read_at,
           public = EXCLUDED.public, verified_resets = EXCLUDED.verified_resets
  )
  DELETE FROM evaluation_surfaces s
   WHERE s.evaluation_id = eval AND (only_surfaces IS NULL OR s.surface = ANY(only_surfaces))
     AND NOT EXISTS (SELECT 1 FROM stats WHERE stats.surface = s.surface)
';

-- AlterTable
ALTER TABLE "evaluation_recomputed_finality" ADD COLUMN     "finality_basis" TEXT;

-- AlterTable
ALTER TABLE "evaluation_runs" ADD COLUMN     "finality_basis" TEXT,
ADD COLUMN     "harness_design" TEXT;

-- AlterTable
ALTER TABLE "evaluation_run_counts" DROP CONSTRAINT "evaluation_run_counts_pkey",
ADD COLUMN     "finality_basis" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "harness_design" TEXT NOT NULL DEFAULT '',
ADD CONSTRAINT "evaluation_run_counts_pkey" PRIMARY KEY ("evaluation_id", "finality", "endpoint_label", "unresolved_reason", "unresolved_tool", "disagreement", "has_terminal", "is_unit", "inherited_state", "finality_basis", "harness_design");


-- Hand-written. A final run names what it rests on (lib/evaluations/finality.ts finalityBasis), and a
-- run may declare its harness's design (lib/evaluations/harness-design.ts): the runs of an AgentDojo
-- evaluation (made by its importer) declare AgentDojo's. The trigger-kept counts key both.
CREATE OR REPLACE FUNCTION evaluation_run_counts_add() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN INSERT INTO evaluation_run_counts AS c (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state, finality_basis, harness_design, n) SELECT r.evaluation_id, r.finality, coalesce(r.endpoint_label, ''''), coalesce(r.unresolved_reason, ''''), coalesce(r.unresolved_tool, ''''), r.disagreement, r.terminal_label IS NOT NULL, coalesce(r.analysis_unit = r.id, true), r.inherited_state, coalesce(r.finality_basis, ''''), coalesce(r.harness_design, ''''), count(*) FROM new_runs r WHERE EXISTS (SELECT 1 FROM evaluations e WHERE e.id = r.evaluation_id) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 ON CONFLICT (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state, finality_basis, harness_design) DO UPDATE SET n = c.n + EXCLUDED.n\073 RETURN NULL\073 END';
CREATE OR REPLACE FUNCTION evaluation_run_counts_remove() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN INSERT INTO evaluation_run_counts AS c (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state, finality_basis, harness_design, n) SELECT r.evaluation_id, r.finality, coalesce(r.endpoint_label, ''''), coalesce(r.unresolved_reason, ''''), coalesce(r.unresolved_tool, ''''), r.disagreement, r.terminal_label IS NOT NULL, coalesce(r.analysis_unit = r.id, true), r.inherited_state, coalesce(r.finality_basis, ''''), coalesce(r.harness_design, ''''), -count(*) FROM old_runs r WHERE EXISTS (SELECT 1 FROM evaluations e WHERE e.id = r.evaluation_id) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 ON CONFLICT (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state, finality_basis, harness_design) DO UPDATE SET n = c.n + EXCLUDED.n\073 RETURN NULL\073 END';
CREATE OR REPLACE FUNCTION evaluation_run_counts_change() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN INSERT INTO evaluation_run_counts AS c (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state, finality_basis, harness_design, n) SELECT r.evaluation_id, r.finality, coalesce(r.endpoint_label, ''''), coalesce(r.unresolved_reason, ''''), coalesce(r.unresolved_tool, ''''), r.disagreement, r.terminal_label IS NOT NULL, coalesce(r.analysis_unit = r.id, true), r.inherited_state, coalesce(r.finality_basis, ''''), coalesce(r.harness_design, ''''), -count(*) FROM old_runs r WHERE EXISTS (SELECT 1 FROM evaluations e WHERE e.id = r.evaluation_id) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 ON CONFLICT (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state, finality_basis, harness_design) DO UPDATE SET n = c.n + EXCLUDED.n\073 INSERT INTO evaluation_run_counts AS c (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state, finality_basis, harness_design, n) SELECT r.evaluation_id, r.finality, coalesce(r.endpoint_label, ''''), coalesce(r.unresolved_reason, ''''), coalesce(r.unresolved_tool, ''''), r.disagreement, r.terminal_label IS NOT NULL, coalesce(r.analysis_unit = r.id, true), r.inherited_state, coalesce(r.finality_basis, ''''), coalesce(r.harness_design, ''''), count(*) FROM new_runs r WHERE EXISTS (SELECT 1 FROM evaluations e WHERE e.id = r.evaluation_id) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 ON CONFLICT (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state, finality_basis, harness_design) DO UPDATE SET n = c.n + EXCLUDED.n\073 RETURN NULL\073 END';

UPDATE evaluation_runs r SET harness_design = 'agentdojo' FROM evaluations e WHERE e.id = r.evaluation_id AND e.harness = 'agentdojo';

-- Every stored final run's basis, under its evaluation's current policy (classes as policy.ts classifyTool
-- gives them: the exact name, else the longest matching pattern, else unclassified).
UPDATE evaluation_runs r SET finality_basis = b.basis FROM (
  WITH policies AS (
    SELECT evaluation_id, version, tools FROM evaluation_effect_policies
  ), classed AS (
    SELECT x.run_id, e.status_at_scoring, ev.status AS evidence_status, ev.at AS evidence_at, x.scored_at,
           coalesce(p.tools ->> e.tool,
                    (SELECT m.value FROM jsonb_each_text(p.tools) m
                      WHERE position('*' IN m.key) > 0
                        AND e.tool LIKE replace(replace(replace(replace(m.key, '\', '\\'), '%', '\%'), '_', '\_'), '*', '%')
                      ORDER BY length(m.key) DESC LIMIT 1),
                    'unclassified') AS cls
      FROM (SELECT r.id AS run_id, r.evaluation_id, e.effect_policy_version AS version, r.scored_at, r.harness_design FROM evaluation_runs r JOIN evaluations e ON e.id = r.evaluation_id WHERE r.finality = 'final') x
      JOIN policies p ON p.evaluation_id = x.evaluation_id AND p.version = x.version
      JOIN evaluation_effects e ON e.run_id = x.run_id
      LEFT JOIN LATERAL (SELECT s.status, s.at FROM evaluation_effect_resolutions s
                          WHERE s.run_id = e.run_id AND s.effect_id = e.effect_id ORDER BY s.id DESC LIMIT 1) ev ON TRUE
  ), per_run AS (
    SELECT run_id,
           bool_or(cls = 'sync_confirmed' AND status_at_scoring IN ('completed', 'failed', 'cancelled')
                   AND NOT coalesce(evidence_status IN ('completed', 'failed', 'cancelled') AND evidence_at <= scored_at, false)) AS by_status,
           bool_or(cls <> 'read_only' AND coalesce(evidence_status IN ('completed', 'failed', 'cancelled') AND evidence_at <= scored_at, false)) AS by_evidence,
           bool_or(cls = 'read_only') AS by_class
      FROM classed GROUP BY run_id
  )
  SELECT x.run_id,
         CASE WHEN NOT coalesce(b.by_status, false) AND coalesce(b.by_evidence, false) THEN 'recorded_evidence'
              WHEN x.harness_design IS NOT NULL THEN 'harness_design'
              WHEN coalesce(b.by_status, false) OR coalesce(b.by_class, false) THEN 'policy_class'
              ELSE 'no_effects' END AS basis
    FROM (SELECT r.id AS run_id, r.evaluation_id, e.effect_policy_version AS version, r.scored_at, r.harness_design FROM evaluation_runs r JOIN evaluations e ON e.id = r.evaluation_id WHERE r.finality = 'final') x LEFT JOIN per_run b ON b.run_id = x.run_id 
) b WHERE r.id = b.run_id;

-- The same for the final runs of a recompute not yet applied, under its own version.
UPDATE evaluation_recomputed_finality f SET finality_basis = b.basis FROM (
  WITH policies AS (
    SELECT evaluation_id, version, tools FROM evaluation_effect_policies
  ), classed AS (
    SELECT x.run_id, e.status_at_scoring, ev.status AS evidence_status, ev.at AS evidence_at, x.scored_at,
           coalesce(p.tools ->> e.tool,
                    (SELECT m.value FROM jsonb_each_text(p.tools) m
                      WHERE position('*' IN m.key) > 0
                        AND e.tool LIKE replace(replace(replace(replace(m.key, '\', '\\'), '%', '\%'), '_', '\_'), '*', '%')
                      ORDER BY length(m.key) DESC LIMIT 1),
                    'unclassified') AS cls
      FROM (SELECT f.run_id, f.evaluation_id, f.version, r.scored_at, r.harness_design FROM evaluation_recomputed_finality f JOIN evaluation_runs r ON r.id = f.run_id WHERE f.finality = 'final') x
      JOIN policies p ON p.evaluation_id = x.evaluation_id AND p.version = x.version
      JOIN evaluation_effects e ON e.run_id = x.run_id
      LEFT JOIN LATERAL (SELECT s.status, s.at FROM evaluation_effect_resolutions s
                          WHERE s.run_id = e.run_id AND s.effect_id = e.effect_id ORDER BY s.id DESC LIMIT 1) ev ON TRUE
  ), per_run AS (
    SELECT run_id,
           bool_or(cls = 'sync_confirmed' AND status_at_scoring IN ('completed', 'failed', 'cancelled')
                   AND NOT coalesce(evidence_status IN ('completed', 'failed', 'cancelled') AND evidence_at <= scored_at, false)) AS by_status,
           bool_or(cls <> 'read_only' AND coalesce(evidence_status IN ('completed', 'failed', 'cancelled') AND evidence_at <= scored_at, false)) AS by_evidence,
           bool_or(cls = 'read_only') AS by_class
      FROM classed GROUP BY run_id
  )
  SELECT x.run_id,
         CASE WHEN NOT coalesce(b.by_status, false) AND coalesce(b.by_evidence, false) THEN 'recorded_evidence'
              WHEN x.harness_design IS NOT NULL THEN 'harness_design'
              WHEN coalesce(b.by_status, false) OR coalesce(b.by_class, false) THEN 'policy_class'
              ELSE 'no_effects' END AS basis
    FROM (SELECT f.run_id, f.evaluation_id, f.version, r.scored_at, r.harness_design FROM evaluation_recomputed_finality f JOIN evaluation_runs r ON r.id = f.run_id WHERE f.finality = 'final') x LEFT JOIN per_run b ON b.run_id = x.run_id 
) b WHERE f.run_id = b.run_id AND f.finality = 'final';

ALTER TABLE "evaluation_runs" ADD CONSTRAINT "evaluation_runs_finality_basis_check" CHECK (
  ("finality" = 'final' AND "finality_basis" IN ('recorded_evidence', 'harness_design', 'policy_class', 'no_effects')) OR
  ("finality" <> 'final' AND "finality_basis" IS NULL));

-- The counts, made again from the runs with their new keys.
DELETE FROM evaluation_run_counts;
INSERT INTO evaluation_run_counts (evaluation_id, finality, endpoint_label, unresolved_reason, unresolved_tool, disagreement, has_terminal, is_unit, inherited_state, finality_basis, harness_design, n)
SELECT r.evaluation_id, r.finality, coalesce(r.endpoint_label, ''), coalesce(r.unresolved_reason, ''), coalesce(r.unresolved_tool, ''), r.disagreement,
       r.terminal_label IS NOT NULL, coalesce(r.analysis_unit = r.id, true), r.inherited_state, coalesce(r.finality_basis, ''), coalesce(r.harness_design, ''), count(*)
  FROM evaluation_runs r GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11;

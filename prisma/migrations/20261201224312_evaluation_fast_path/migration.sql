-- DropIndex
DROP INDEX "evaluation_effects_evaluation_id_surface_idx";

-- DropIndex
DROP INDEX "evaluation_touches_evaluation_id_surface_idx";

-- CreateTable
CREATE TABLE "evaluation_surfaces" (
    "evaluation_id" UUID NOT NULL,
    "surface" TEXT NOT NULL,
    "first_write_at" TIMESTAMPTZ(3),
    "first_writer" BIGINT,
    "second_write_at" TIMESTAMPTZ(3),
    "last_read_at" TIMESTAMPTZ(3),
    "last_reader" BIGINT,
    "second_read_at" TIMESTAMPTZ(3),
    "public" BOOLEAN NOT NULL DEFAULT false,
    "verified_resets" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "evaluation_surfaces_pkey" PRIMARY KEY ("evaluation_id","surface")
);

-- CreateTable
CREATE TABLE "evaluation_tool_counts" (
    "evaluation_id" UUID NOT NULL,
    "tool" TEXT NOT NULL,
    "effects" BIGINT NOT NULL,
    "calls" BIGINT NOT NULL,

    CONSTRAINT "evaluation_tool_counts_pkey" PRIMARY KEY ("evaluation_id","tool")
);

-- CreateIndex
CREATE INDEX "evaluation_effects_evaluation_id_surface_requested_at_idx" ON "evaluation_effects"("evaluation_id", "surface", "requested_at");

-- CreateIndex
CREATE INDEX "evaluation_touches_evaluation_id_surface_at_idx" ON "evaluation_touches"("evaluation_id", "surface", "at");

-- AddForeignKey
ALTER TABLE "evaluation_surfaces" ADD CONSTRAINT "evaluation_surfaces_evaluation_id_fkey" FOREIGN KEY ("evaluation_id") REFERENCES "evaluations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "evaluation_tool_counts" ADD CONSTRAINT "evaluation_tool_counts_evaluation_id_fkey" FOREIGN KEY ("evaluation_id") REFERENCES "evaluations"("id") ON DELETE CASCADE ON UPDATE CASCADE;



-- Hand-written: evaluation_surfaces recomputed from a surface's whole history, for the full
-- recompute (a batch that changes stored runs, a surface with a verified reset) and the backfill
-- below. The fast path merges a new batch into these rows instead (lib/evaluations/audit-store.ts).
-- A writer's scoring counts as a read of what it wrote (lib/evaluations/separation.ts). `only_surfaces` NULL: every surface.
-- (Prisma's statement splitter cuts at every semicolon: bodies have none.)
CREATE FUNCTION evaluation_surfaces_refresh(eval uuid, only_surfaces text[]) RETURNS void LANGUAGE sql AS E'
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
    SELECT w.surface, w.run_id, r.scored_at FROM first_writes w JOIN evaluation_runs r ON r.id = w.run_id
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

-- Hand-written: evaluation_tool_counts kept by statement-level triggers with transition tables, as
-- evaluation_run_counts is: every writer (INSERT … SELECT, ON CONFLICT updates, COPY) keeps them
-- exact. A run's tool calls are counted from its tool_calls array, an update counts only the rows
-- whose tool_calls changed (the audit's updates of other columns cost a join). Deltas of an
-- evaluation being deleted are skipped, rows are upserted in key order.
CREATE FUNCTION evaluation_tool_counts_calls_add() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN INSERT INTO evaluation_tool_counts AS c (evaluation_id, tool, effects, calls) SELECT r.evaluation_id, t->>''tool'', 0, sum(r.n) FROM (SELECT evaluation_id, tool_calls, 1 AS n FROM new_runs) r CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(r.tool_calls) = ''array'' THEN r.tool_calls END) t WHERE t->>''tool'' IS NOT NULL AND EXISTS (SELECT 1 FROM evaluations e WHERE e.id = r.evaluation_id) GROUP BY 1, 2 HAVING sum(r.n) <> 0 ORDER BY 1, 2 ON CONFLICT (evaluation_id, tool) DO UPDATE SET calls = c.calls + EXCLUDED.calls\073 RETURN NULL\073 END';
CREATE FUNCTION evaluation_tool_counts_calls_remove() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN INSERT INTO evaluation_tool_counts AS c (evaluation_id, tool, effects, calls) SELECT r.evaluation_id, t->>''tool'', 0, sum(r.n) FROM (SELECT evaluation_id, tool_calls, -1 AS n FROM old_runs) r CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(r.tool_calls) = ''array'' THEN r.tool_calls END) t WHERE t->>''tool'' IS NOT NULL AND EXISTS (SELECT 1 FROM evaluations e WHERE e.id = r.evaluation_id) GROUP BY 1, 2 HAVING sum(r.n) <> 0 ORDER BY 1, 2 ON CONFLICT (evaluation_id, tool) DO UPDATE SET calls = c.calls + EXCLUDED.calls\073 RETURN NULL\073 END';
CREATE FUNCTION evaluation_tool_counts_calls_change() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN INSERT INTO evaluation_tool_counts AS c (evaluation_id, tool, effects, calls) SELECT r.evaluation_id, t->>''tool'', 0, sum(r.n) FROM (SELECT o.evaluation_id, o.tool_calls, -1 AS n FROM old_runs o JOIN new_runs n ON n.id = o.id WHERE o.tool_calls IS DISTINCT FROM n.tool_calls UNION ALL SELECT n.evaluation_id, n.tool_calls, 1 FROM old_runs o JOIN new_runs n ON n.id = o.id WHERE o.tool_calls IS DISTINCT FROM n.tool_calls) r CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(r.tool_calls) = ''array'' THEN r.tool_calls END) t WHERE t->>''tool'' IS NOT NULL AND EXISTS (SELECT 1 FROM evaluations e WHERE e.id = r.evaluation_id) GROUP BY 1, 2 HAVING sum(r.n) <> 0 ORDER BY 1, 2 ON CONFLICT (evaluation_id, tool) DO UPDATE SET calls = c.calls + EXCLUDED.calls\073 RETURN NULL\073 END';
CREATE FUNCTION evaluation_tool_counts_effects_add() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN INSERT INTO evaluation_tool_counts AS c (evaluation_id, tool, effects, calls) SELECT d.evaluation_id, d.tool, sum(d.n), 0 FROM (SELECT evaluation_id, tool, 1 AS n FROM new_effects) d WHERE EXISTS (SELECT 1 FROM evaluations e WHERE e.id = d.evaluation_id) GROUP BY 1, 2 HAVING sum(d.n) <> 0 ORDER BY 1, 2 ON CONFLICT (evaluation_id, tool) DO UPDATE SET effects = c.effects + EXCLUDED.effects\073 RETURN NULL\073 END';
CREATE FUNCTION evaluation_tool_counts_effects_remove() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN INSERT INTO evaluation_tool_counts AS c (evaluation_id, tool, effects, calls) SELECT d.evaluation_id, d.tool, sum(d.n), 0 FROM (SELECT evaluation_id, tool, -1 AS n FROM old_effects) d WHERE EXISTS (SELECT 1 FROM evaluations e WHERE e.id = d.evaluation_id) GROUP BY 1, 2 HAVING sum(d.n) <> 0 ORDER BY 1, 2 ON CONFLICT (evaluation_id, tool) DO UPDATE SET effects = c.effects + EXCLUDED.effects\073 RETURN NULL\073 END';
CREATE TRIGGER evaluation_runs_tool_counts_insert AFTER INSERT ON evaluation_runs REFERENCING NEW TABLE AS new_runs FOR EACH STATEMENT EXECUTE FUNCTION evaluation_tool_counts_calls_add();
CREATE TRIGGER evaluation_runs_tool_counts_update AFTER UPDATE ON evaluation_runs REFERENCING OLD TABLE AS old_runs NEW TABLE AS new_runs FOR EACH STATEMENT EXECUTE FUNCTION evaluation_tool_counts_calls_change();
CREATE TRIGGER evaluation_runs_tool_counts_delete AFTER DELETE ON evaluation_runs REFERENCING OLD TABLE AS old_runs FOR EACH STATEMENT EXECUTE FUNCTION evaluation_tool_counts_calls_remove();
CREATE TRIGGER evaluation_effects_tool_counts_insert AFTER INSERT ON evaluation_effects REFERENCING NEW TABLE AS new_effects FOR EACH STATEMENT EXECUTE FUNCTION evaluation_tool_counts_effects_add();
CREATE TRIGGER evaluation_effects_tool_counts_delete AFTER DELETE ON evaluation_effects REFERENCING OLD TABLE AS old_effects FOR EACH STATEMENT EXECUTE FUNCTION evaluation_tool_counts_effects_remove();

-- Backfill: the rows already stored.
INSERT INTO evaluation_tool_counts (evaluation_id, tool, effects, calls)
SELECT evaluation_id, tool, sum(effects), sum(calls) FROM (
  SELECT evaluation_id, tool, count(*) AS effects, 0 AS calls FROM evaluation_effects GROUP BY 1, 2
  UNION ALL
  SELECT r.evaluation_id, t->>'tool', 0, count(*) FROM evaluation_runs r CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(r.tool_calls) = 'array' THEN r.tool_calls END) t
   WHERE t->>'tool' IS NOT NULL GROUP BY 1, 2
) seen GROUP BY 1, 2;
SELECT evaluation_surfaces_refresh(id, NULL) FROM evaluations;

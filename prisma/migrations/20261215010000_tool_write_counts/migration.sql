-- Each tool's effects that show a write (a surface, a handle, or pending at scoring: lib/evaluations/read-only-warning.ts
-- effectShowsAWrite), kept by the effects' statement triggers as their counts are: the policy form's read-only warning
-- read them by counting every effect of the evaluation, which grew with it (hundreds of ms at a million runs).
-- (Prisma's statement splitter cuts at every semicolon: bodies have none.)

-- AlterTable
ALTER TABLE "evaluation_tool_counts" ADD COLUMN "writes" BIGINT NOT NULL DEFAULT 0;

CREATE OR REPLACE FUNCTION evaluation_tool_counts_effects_add() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN INSERT INTO evaluation_tool_counts AS c (evaluation_id, tool, effects, calls, writes) SELECT d.evaluation_id, d.tool, sum(d.n), 0, coalesce(sum(d.n) FILTER (WHERE d.surface IS NOT NULL OR d.handle IS NOT NULL OR d.status_at_scoring = ''pending''), 0) FROM (SELECT evaluation_id, tool, surface, handle, status_at_scoring, 1 AS n FROM new_effects) d WHERE EXISTS (SELECT 1 FROM evaluations e WHERE e.id = d.evaluation_id) GROUP BY 1, 2 HAVING sum(d.n) <> 0 ORDER BY 1, 2 ON CONFLICT (evaluation_id, tool) DO UPDATE SET effects = c.effects + EXCLUDED.effects, writes = c.writes + EXCLUDED.writes\073 RETURN NULL\073 END';
CREATE OR REPLACE FUNCTION evaluation_tool_counts_effects_remove() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN INSERT INTO evaluation_tool_counts AS c (evaluation_id, tool, effects, calls, writes) SELECT d.evaluation_id, d.tool, sum(d.n), 0, coalesce(sum(d.n) FILTER (WHERE d.surface IS NOT NULL OR d.handle IS NOT NULL OR d.status_at_scoring = ''pending''), 0) FROM (SELECT evaluation_id, tool, surface, handle, status_at_scoring, -1 AS n FROM old_effects) d WHERE EXISTS (SELECT 1 FROM evaluations e WHERE e.id = d.evaluation_id) GROUP BY 1, 2 HAVING sum(d.n) <> 0 ORDER BY 1, 2 ON CONFLICT (evaluation_id, tool) DO UPDATE SET effects = c.effects + EXCLUDED.effects, writes = c.writes + EXCLUDED.writes\073 RETURN NULL\073 END';

-- Backfill: the effects already stored.
UPDATE evaluation_tool_counts c SET writes = w.writes
  FROM (SELECT evaluation_id, tool, count(*) AS writes FROM evaluation_effects
         WHERE surface IS NOT NULL OR handle IS NOT NULL OR status_at_scoring = 'pending' GROUP BY 1, 2) w
 WHERE c.evaluation_id = w.evaluation_id AND c.tool = w.tool;

-- The separation audit's surface stats now cover a surface's latest epoch, the time after its latest
-- reset that breaks routes (lib/evaluations/separation.ts, SurfaceStats): where that reset is, the latest
-- instant the epoch's events reach (a reset after it opens a new epoch), and whether the stats decide the
-- surface's links at all (`recompute`, which the old flag of a verified reset becomes: a surface with one
-- was always recomputed). Rows kept as they were stay exact: whole-history stats with no epoch claimed.
ALTER TABLE "evaluation_surfaces" RENAME COLUMN "verified_resets" TO "recompute";
ALTER TABLE "evaluation_surfaces" ADD COLUMN "epoch_start_at" TIMESTAMPTZ(3), ADD COLUMN "horizon_at" TIMESTAMPTZ(3);

-- The refresh from a surface's whole history claims no epoch: a surface with a verified reset is left to
-- the next recompute, which stores its latest epoch's stats from the history it reads.
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
    INSERT INTO evaluation_surfaces AS s (evaluation_id, surface, first_write_at, first_writer, second_write_at, last_read_at, last_reader, second_read_at, public, epoch_start_at, horizon_at, recompute)
    SELECT eval, surface, first_write_at, first_writer, second_write_at, last_read_at, last_reader, second_read_at, public, NULL::timestamptz, NULL::timestamptz, verified FROM stats ORDER BY surface
    ON CONFLICT (evaluation_id, surface) DO UPDATE
       SET first_write_at = EXCLUDED.first_write_at, first_writer = EXCLUDED.first_writer, second_write_at = EXCLUDED.second_write_at,
           last_read_at = EXCLUDED.last_read_at, last_reader = EXCLUDED.last_reader, second_read_at = EXCLUDED.second_read_at,
           public = EXCLUDED.public, epoch_start_at = NULL, horizon_at = NULL, recompute = EXCLUDED.recompute
  )
  DELETE FROM evaluation_surfaces s
   WHERE s.evaluation_id = eval AND (only_surfaces IS NULL OR s.surface = ANY(only_surfaces))
     AND NOT EXISTS (SELECT 1 FROM stats WHERE stats.surface = s.surface)
';

// evaluation_surfaces: per surface, the stats the separation audit's fast path links runs by
// (separation.ts, SurfaceStats): read for a batch's surfaces, written back merged, or refreshed from
// a surface's whole history by the SQL function of migration evaluation_fast_path.
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import type { CopyTx } from "../../db/sql-transaction";
import { unnestRows } from "../../db/unnest-rows";
import type { SurfaceStats } from "../separation";
import type { Tx } from "./lock";

export const msNumber = z.coerce.number();
export const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
/** A horizon as timestamptz text: PostgreSQL's infinities stand for a write that may still land and an epoch without events. */
const horizonText = (ms: number | null) =>
  ms === null ? null : ms === Number.POSITIVE_INFINITY ? "infinity" : ms === Number.NEGATIVE_INFINITY ? "-infinity" : isoOrNull(ms);

/** A horizon as milliseconds: ±Infinity are PostgreSQL's infinities, which z.number() refuses. */
const horizonNumber = z
  .unknown()
  .transform((value) => (value === null ? null : Number(value)))
  .refine((ms) => ms === null || !Number.isNaN(ms), "horizon_ms must be a time or an infinity");

const statsRow = z.object({
  surface: z.string(),
  first_write_ms: msNumber.nullable(),
  first_writer: z.string().nullable(),
  second_write_ms: msNumber.nullable(),
  last_read_ms: msNumber.nullable(),
  last_reader: z.string().nullable(),
  second_read_ms: msNumber.nullable(),
  public: z.boolean(),
  epoch_start_ms: msNumber.nullable(),
  horizon_ms: horizonNumber,
  recompute: z.boolean(),
});
const SURFACE_STATS_COLUMNS = {
  evaluation_id: "uuid",
  surface: "text",
  first_write_at: "timestamptz",
  first_writer: "bigint",
  second_write_at: "timestamptz",
  last_read_at: "timestamptz",
  last_reader: "bigint",
  second_read_at: "timestamptz",
  public: "boolean",
  epoch_start_at: "timestamptz",
  horizon_at: "timestamptz",
  recompute: "boolean",
} as const;

/** The stored stats of those of `surfaces` the evaluation has (`surfaces` sorted). */
export async function storedSurfaceStats(tx: Tx, evaluationId: string, surfaces: readonly string[]): Promise<Map<string, SurfaceStats>> {
  return new Map(
    z
      .array(statsRow)
      .parse(
        await tx.$queryRaw`
          SELECT s.surface, extract(epoch FROM first_write_at) * 1000 AS first_write_ms, first_writer::text AS first_writer, extract(epoch FROM second_write_at) * 1000 AS second_write_ms,
                 extract(epoch FROM last_read_at) * 1000 AS last_read_ms, last_reader::text AS last_reader, extract(epoch FROM second_read_at) * 1000 AS second_read_ms, public,
                 extract(epoch FROM epoch_start_at) * 1000 AS epoch_start_ms, extract(epoch FROM horizon_at) * 1000 AS horizon_ms, recompute
            -- one key probe per surface (an ANY list let a lagging plan scan every surface of the evaluation)
            FROM unnest(${surfaces}::text[]) AS x(surface)
           CROSS JOIN LATERAL (SELECT * FROM evaluation_surfaces s WHERE s.evaluation_id = ${evaluationId}::uuid AND s.surface = x.surface OFFSET 0) s`,
      )
      .map((r): [string, SurfaceStats] => [
        r.surface,
        {
          firstWrite: r.first_write_ms === null ? null : { atMs: r.first_write_ms, runId: r.first_writer! },
          secondWriteMs: r.second_write_ms,
          lastRead: r.last_read_ms === null ? null : { atMs: r.last_read_ms, runId: r.last_reader! },
          secondReadMs: r.second_read_ms,
          public: r.public,
          epochStartMs: r.epoch_start_ms,
          horizonMs: r.horizon_ms,
          recompute: r.recompute,
        },
      ]),
  );
}

/** evaluation_surfaces rows of the given stats, by surface. */
function statsRows(evaluationId: string, stats: ReadonlyMap<string, SurfaceStats>) {
  return [...stats].map(([surface, m]) => ({
    evaluation_id: evaluationId,
    surface,
    first_write_at: isoOrNull(m.firstWrite?.atMs ?? null),
    first_writer: m.firstWrite?.runId ?? null,
    second_write_at: isoOrNull(m.secondWriteMs),
    last_read_at: isoOrNull(m.lastRead?.atMs ?? null),
    last_reader: m.lastRead?.runId ?? null,
    second_read_at: isoOrNull(m.secondReadMs),
    public: m.public,
    epoch_start_at: isoOrNull(m.epochStartMs),
    horizon_at: horizonText(m.horizonMs),
    recompute: m.recompute,
  }));
}

/** Writes `merged`, the stats of `surfaces` with a batch added, over `stored`, what they were. Call under lockEvaluationAudit. */
export async function writeSurfaceStats(
  tx: CopyTx,
  evaluationId: string,
  surfaces: readonly string[],
  stored: ReadonlyMap<string, SurfaceStats>,
  merged: ReadonlyMap<string, SurfaceStats>,
): Promise<void> {
  // Most of a batch's surfaces are new to the evaluation: copied in (under the audit lock no other writer adds them);
  // the stored ones are updated only where the batch moved their stats.
  await tx.copyRows(
    "evaluation_surfaces",
    statsRows(evaluationId, new Map(surfaces.filter((s) => !stored.has(s)).map((s) => [s, merged.get(s)!]))),
    SURFACE_STATS_COLUMNS,
  );
  const moved = surfaces.filter((s) => stored.has(s) && !isDeepStrictEqual(stored.get(s), merged.get(s)));
  if (moved.length > 0) {
    await tx.$executeRaw`
      UPDATE evaluation_surfaces AS s
         SET first_write_at = x.first_write_at, first_writer = x.first_writer, second_write_at = x.second_write_at,
             last_read_at = x.last_read_at, last_reader = x.last_reader, second_read_at = x.second_read_at,
             public = x.public, epoch_start_at = x.epoch_start_at, horizon_at = x.horizon_at, recompute = x.recompute
        FROM ${unnestRows(statsRows(evaluationId, new Map(moved.map((s) => [s, merged.get(s)!]))), SURFACE_STATS_COLUMNS)}
       WHERE s.evaluation_id = x.evaluation_id AND s.surface = x.surface`;
  }
}

/**
 * Stores the latest epoch's stats of surfaces a recompute read whole (separation.ts, epochSurfaceStats),
 * and marks the others it changed `recompute` where their rows claim an epoch's horizon or start (a late
 * resolution or canary may have moved them); a row that claims neither holds stats of a surface without
 * a reset that breaks routes, which no settlement or canary changes. Call under lockEvaluationAudit.
 */
export async function storeRecomputedStats(
  tx: Tx,
  evaluationId: string,
  recomputed: ReadonlyMap<string, SurfaceStats>,
  unread: readonly string[],
): Promise<void> {
  if (recomputed.size > 0)
    await tx.$executeRaw`
      INSERT INTO evaluation_surfaces AS s (evaluation_id, surface, first_write_at, first_writer, second_write_at, last_read_at, last_reader,
                                            second_read_at, public, epoch_start_at, horizon_at, recompute)
      SELECT * FROM ${unnestRows(statsRows(evaluationId, recomputed), SURFACE_STATS_COLUMNS)} ORDER BY x.surface
      ON CONFLICT (evaluation_id, surface) DO UPDATE
         SET first_write_at = EXCLUDED.first_write_at, first_writer = EXCLUDED.first_writer, second_write_at = EXCLUDED.second_write_at,
             last_read_at = EXCLUDED.last_read_at, last_reader = EXCLUDED.last_reader, second_read_at = EXCLUDED.second_read_at, public = EXCLUDED.public,
             epoch_start_at = EXCLUDED.epoch_start_at, horizon_at = EXCLUDED.horizon_at, recompute = EXCLUDED.recompute`;
  if (unread.length > 0)
    await tx.$executeRaw`
      UPDATE evaluation_surfaces SET recompute = true
       WHERE evaluation_id = ${evaluationId}::uuid AND surface = ANY(${unread}::text[]) AND NOT recompute
         AND (epoch_start_at IS NOT NULL OR horizon_at IS NOT NULL)`;
}

/** Recomputes the stats of `surfaces` from their whole history (after stored runs changed): migration surface_epochs' function. */
export async function refreshSurfaceStats(tx: Tx, evaluationId: string, surfaces: readonly string[]): Promise<void> {
  if (surfaces.length > 0) await tx.$executeRaw`SELECT evaluation_surfaces_refresh(${evaluationId}::uuid, ${surfaces}::text[])`;
}

// Separation after a batch of runs new to the evaluation, without reading any surface's history: the
// reads and writes of the fast path, in order. What links, and how units merge, is decided by the
// pure functions of links.ts and units.ts; this file only reads and writes.
import { mostPublicInheritedSql } from "../../replay/rules/inherited-state";
import { z } from "zod";
import type { CopyTx } from "../../db/sql-transaction";
import { unnestRows } from "../../db/unnest-rows";
import { Prisma } from "../../generated/prisma/client";
import type { InheritedState } from "../vocabulary";
import type { RunRecord } from "../run-record-schema";
import {
  batchLinks,
  batchRunAudit,
  batchSurfaces,
  epochGroupAnchors,
  joinUnit,
  linkGroupNames,
  mergeSurfaceStats,
  newlyLinkableRange,
  separationPaths,
  surfacesMadePublic,
  type BatchSurfaces,
  type LinkableRange,
  type LinkCandidate,
  type NewLink,
} from "./links";
import type { Tx } from "./lock";
import { isoOrNull, msNumber, storedSurfaceStats, writeSurfaceStats } from "./surface-stats-store";
import { mergeUnits } from "./unit-store";

/**
 * Separation after a batch of runs new to the evaluation (none re-sent with changes), without
 * reading any surface's history: each surface's stats (evaluation_surfaces) are merged with the
 * batch (links.ts, mergeSurfaceStats), then where they still decide the surface's latest epoch the batch's runs are linked by the stats
 * (separation.ts, linkWithoutResets), and so are the stored runs the new stats newly link — found
 * by time ranges on the indexes (writes after the old latest read, reads after the new earliest
 * write and before the old one). The units so joined are merged (the larger ids relabelled to the
 * smallest). Called before the batch's runs are written (their ids drawn): answers each linked new
 * run's unit and inherited state, and the surfaces the stats no longer decide, which the caller
 * recomputes in full (recomputeSeparation) once the runs are written. Call under lockEvaluationAudit.
 */
export async function addRunsToSeparation(
  tx: CopyTx,
  evaluationId: string,
  runs: readonly { id: string; run: RunRecord }[],
  batch: BatchSurfaces = batchSurfaces(runs),
): Promise<{ audit: Map<string, { unit: string; inherited: InheritedState }>; slow: string[] }> {
  if (batch.size === 0) return { audit: new Map(), slow: [] };
  const surfaces = [...batch.keys()].sort();
  const stored = await storedSurfaceStats(tx, evaluationId, surfaces);
  const merged = new Map(surfaces.map((s) => [s, mergeSurfaceStats(stored.get(s), batch.get(s)!)]));
  await writeSurfaceStats(tx, evaluationId, surfaces, stored, merged);

  const { fast, slow } = separationPaths(surfaces, merged);
  // The stored runs the new stats may newly link: only on surfaces that had stats, and only where they moved.
  const ranges = fast.flatMap((surface) => newlyLinkableRange(surface, stored.get(surface), merged.get(surface)!) ?? []);
  const batchIds = runs.map((r) => r.id);
  const batchSet = new Set(batchIds);
  const candidates = ranges.length === 0 ? [] : await storedLinkCandidates(tx, evaluationId, ranges, batchIds);
  // The links to write: the batch's runs the stats link, the stored ones newly linked or now receiving state.
  const { links, unitsOn } = batchLinks(fast, merged, batch, candidates);
  const newlyPublic = surfacesMadePublic(fast, stored, merged);
  const flipped = newlyPublic.length === 0 ? [] : await passPublicState(tx, evaluationId, newlyPublic);
  let audit = new Map<string, { unit: string; inherited: InheritedState }>();
  if (links.length > 0) {
    const existing = await storedLinkGroups(tx, evaluationId, epochGroupAnchors(unitsOn.keys(), stored, merged));
    for (const e of existing) joinUnit(unitsOn, e.surface, e.unit);
    await insertLinks(tx, evaluationId, links, linkGroupNames(existing, links));
    const units = await mergeUnits(tx, evaluationId, unitsOn, batchSet);
    audit = batchRunAudit(links, batchSet, units);
  }
  // The stored runs whose links changed take the most public state they now receive; the batch's runs are written with theirs.
  const changed = [...new Set([...links.map((l) => l.runId), ...flipped])].filter((id) => !batchSet.has(id));
  if (changed.length > 0) await updateInheritedStates(tx, changed);
  return { audit, slow };
}

const candidateRow = z.object({
  surface: z.string(),
  run_id: z.string(),
  first_write_ms: msNumber.nullable(),
  last_read_ms: msNumber.nullable(),
  unit: z.string(),
  inherited: z.enum(["none", "internal", "public"]).nullable(),
});

/**
 * The stored runs (not of the batch, `batchIds`) in each LinkableRange, with their span on its
 * surface, their unit and their link there: links.ts's linkCandidateRuns and separation.ts's
 * surfaceRunSpans, set-based, so that each surface costs a few index range scans however long its
 * history (audit/links.db.test.ts checks that the two agree).
 */
export async function storedLinkCandidates(
  tx: CopyTx,
  evaluationId: string,
  ranges: readonly LinkableRange[],
  batchIds: readonly string[],
): Promise<LinkCandidate[]> {
  const rows = ranges.map((r) => ({
    surface: r.surface,
    epoch_start: isoOrNull(r.epochStartMs),
    read_lo: isoOrNull(r.readLoMs),
    read_hi: isoOrNull(r.readHiMs),
    write_lo: isoOrNull(r.writeLoMs),
    write_hi: isoOrNull(r.writeHiMs),
    explicit: r.explicit,
  }));
  // Prepared, and planned once a connection: planning it took longer than running it, once a batch; its
  // shape is fixed by its LATERAL probes whatever the parameters (left to choose, PostgreSQL planned it anew each time).
  await tx.$executeRaw`SELECT set_config('plan_cache_mode', 'force_generic_plan', true)`;
  const found = z
    .array(candidateRow)
    .parse(
      await tx.$queryPrepared(
        "separation-link-candidates",
        Prisma.sql`
        WITH q AS (
          SELECT * FROM json_to_recordset(${JSON.stringify(rows)}::json)
            AS q(surface text, epoch_start timestamptz, read_lo timestamptz, read_hi timestamptz, write_lo timestamptz, write_hi timestamptz, explicit bigint[])
        ), candidate AS (
          -- Per surface, index range scans only (LATERAL keeps the planner from hashing every touch of the evaluation).
          SELECT DISTINCT q.surface, x.run_id FROM q CROSS JOIN LATERAL (
            SELECT t.run_id FROM evaluation_touches t
             WHERE q.read_lo IS NOT NULL AND t.evaluation_id = ${evaluationId}::uuid AND t.surface = q.surface AND t.at > q.read_lo AND t.at <= coalesce(q.read_hi, 'infinity') AND t.op <> 'write'
            UNION ALL
            -- a writer's scoring is a read: scanned only when the earliest write moved earlier, which ordered ingestion makes rare.
            -- The guard gates the whole arm, and each writer's run is probed by key: joined, the planner scanned every run stored once per surface.
            SELECT w.run_id FROM (SELECT t.run_id FROM evaluation_touches t WHERE t.evaluation_id = ${evaluationId}::uuid AND t.surface = q.surface AND t.op = 'write'
                                  UNION SELECT e.run_id FROM evaluation_effects e WHERE e.evaluation_id = ${evaluationId}::uuid AND e.surface = q.surface) w
             CROSS JOIN LATERAL (SELECT 1 FROM evaluation_runs r WHERE r.id = w.run_id AND r.scored_at > q.read_lo AND r.scored_at <= coalesce(q.read_hi, 'infinity') OFFSET 0) r
             WHERE q.read_lo IS NOT NULL
            UNION ALL
            SELECT t.run_id FROM evaluation_touches t
             WHERE q.write_hi IS NOT NULL AND t.evaluation_id = ${evaluationId}::uuid AND t.surface = q.surface AND t.at >= coalesce(q.write_lo, '-infinity') AND t.at < q.write_hi AND t.op = 'write'
               AND t.at > coalesce(q.epoch_start, '-infinity')
            UNION ALL
            SELECT e.run_id FROM evaluation_effects e
             WHERE q.write_hi IS NOT NULL AND e.evaluation_id = ${evaluationId}::uuid AND e.surface = q.surface AND e.requested_at >= coalesce(q.write_lo, '-infinity') AND e.requested_at < q.write_hi
               AND e.requested_at > coalesce(q.epoch_start, '-infinity')
            UNION ALL
            SELECT unnest(q.explicit)
          ) x
        )
        SELECT c.surface, c.run_id::text AS run_id, r.analysis_unit::text AS unit, l.inherited,
               extract(epoch FROM (SELECT min(at) FROM (SELECT t.at FROM evaluation_touches t WHERE t.run_id = c.run_id AND t.surface = c.surface AND t.op = 'write'
                                                        UNION ALL SELECT e.requested_at FROM evaluation_effects e WHERE e.run_id = c.run_id AND e.surface = c.surface) w)) * 1000 AS first_write_ms,
               extract(epoch FROM (SELECT max(at) FROM (SELECT t.at FROM evaluation_touches t WHERE t.run_id = c.run_id AND t.surface = c.surface AND t.op <> 'write'
                                                        UNION ALL SELECT r.scored_at WHERE EXISTS (SELECT 1 FROM evaluation_touches t WHERE t.run_id = c.run_id AND t.surface = c.surface AND t.op = 'write')
                                                                                       OR EXISTS (SELECT 1 FROM evaluation_effects e WHERE e.run_id = c.run_id AND e.surface = c.surface)) rd)) * 1000 AS last_read_ms
          FROM candidate c
          -- OFFSET 0: looked up per candidate by key, never hashed from a scan of every run
          CROSS JOIN LATERAL (SELECT analysis_unit, scored_at FROM evaluation_runs WHERE id = c.run_id OFFSET 0) r
          LEFT JOIN LATERAL (SELECT inherited FROM evaluation_surface_links WHERE evaluation_id = ${evaluationId}::uuid AND surface = c.surface AND run_id = c.run_id OFFSET 0) l ON TRUE
         WHERE NOT (c.run_id = ANY(${batchIds}::bigint[]))`,
      ),
    )
    .map((c) => ({
      surface: c.surface,
      runId: c.run_id,
      firstWriteMs: c.first_write_ms,
      lastReadMs: c.last_read_ms,
      unit: c.unit,
      inherited: c.inherited,
    }));
  await tx.$executeRaw`SELECT set_config('plan_cache_mode', 'auto', true)`;
  return found;
}

/**
 * On surfaces made public (links.ts, surfacesMadePublic), the links that passed internal state pass
 * public state: one statement, whatever the number of links. Answers their runs.
 */
async function passPublicState(tx: Tx, evaluationId: string, surfaces: readonly string[]): Promise<string[]> {
  return z
    .array(z.object({ run_id: z.string() }))
    .parse(
      await tx.$queryRaw`UPDATE evaluation_surface_links SET inherited = 'public' WHERE evaluation_id = ${evaluationId}::uuid AND surface = ANY(${surfaces}::text[]) AND inherited = 'internal' RETURNING run_id::text AS run_id`,
    )
    .map((r) => r.run_id);
}

/** The stored group of each linked surface's latest epoch, found through its anchor (links.ts, epochGroupAnchors), and the unit of the run that names it. */
async function storedLinkGroups(
  tx: Tx,
  evaluationId: string,
  anchors: readonly { surface: string; runId: string }[],
): Promise<{ surface: string; linkGroup: string; unit: string }[]> {
  return z
    .array(z.object({ surface: z.string(), link_group: z.string(), unit: z.string() }))
    .parse(
      await tx.$queryRaw`
        SELECT a.surface, l.link_group::text AS link_group, r.analysis_unit::text AS unit
          FROM unnest(${anchors.map((a) => a.surface)}::text[], ${anchors.map((a) => a.runId)}::bigint[]) AS a(surface, run_id)
          JOIN evaluation_surface_links l ON l.evaluation_id = ${evaluationId}::uuid AND l.surface = a.surface AND l.run_id = a.run_id
          JOIN evaluation_runs r ON r.id = l.link_group`,
    )
    .map((e) => ({ surface: e.surface, linkGroup: e.link_group, unit: e.unit }));
}

/** The links, in their surface's group; a stored run's link takes its new state. */
async function insertLinks(tx: Tx, evaluationId: string, links: readonly NewLink[], groupOf: ReadonlyMap<string, string>): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO evaluation_surface_links (evaluation_id, surface, run_id, link_group, inherited)
    SELECT ${evaluationId}::uuid, x.surface, x.run_id, x.link_group, x.inherited
      FROM ${unnestRows(
        links.map((l) => ({ surface: l.surface, run_id: l.runId, inherited: l.inherited, link_group: groupOf.get(l.surface)! })),
        { surface: "text", run_id: "bigint", link_group: "bigint", inherited: "text" },
      )}
     ORDER BY x.surface, x.run_id
    ON CONFLICT (evaluation_id, surface, run_id) DO UPDATE SET inherited = EXCLUDED.inherited`;
}

/** Stored runs take the most public state their links now pass (separation.ts's rank, as SQL: links.ts, mostPublicInheritedSql). */
export async function updateInheritedStates(tx: Tx, runIds: readonly string[]): Promise<void> {
  await tx.$executeRaw`
    UPDATE evaluation_runs r SET inherited_state = x.state
      FROM (SELECT run_id, ${Prisma.raw(mostPublicInheritedSql("inherited"))} AS state
              FROM evaluation_surface_links WHERE run_id = ANY(${runIds}::bigint[]) GROUP BY run_id) x
     WHERE r.id = ANY(${runIds}::bigint[]) AND r.id = x.run_id AND r.inherited_state <> x.state`;
}

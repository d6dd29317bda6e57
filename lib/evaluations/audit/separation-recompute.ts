// Separation recomputed from the history of the surfaces a change touched (a reset the surface stats
// cannot place, a run re-sent with changes, a late resolution or canary): their link groups by the sweep
// (separation.ts, surfaceLinkGroups), then the analysis units of every run they reach, or, when the
// links only grew, the units they join merged. Bounded work: only those surfaces, and the units that
// reach them; the history of those surfaces is still read whole.
import { z } from "zod";
import { analysisUnits, effectSettledAtMs, epochSurfaceStats, surfaceLinkGroups, type SurfaceHistory } from "../separation";
import { linkGroupsOfRows, linkGrowth, surfaceLinkRows, type LinkRow } from "./links";
import type { Tx } from "./lock";
import { updateInheritedStates } from "./separation-incremental";
import { msNumber, storeRecomputedStats } from "./surface-stats-store";
import { mergeUnits } from "./unit-store";
import { recomputedUnitRows } from "./units";

const surfaceEvent = z.object({
  kind: z.enum(["write", "read", "effect", "reset"]),
  surface: z.string(),
  run_id: z.string(),
  at_ms: msNumber,
  scored_ms: msNumber.nullable(),
  public: z.boolean().nullable(),
  acknowledged_ms: msNumber.nullable(),
  status_at_scoring: z.string().nullable(),
  res_status: z.string().nullable(),
  res_ms: msNumber.nullable(),
  verified: z.boolean().nullable(),
  canary_survived: z.boolean().nullable(),
});

/**
 * Everything stored on the given surfaces: writes (touches and effects), reads and scorings, resets. The runs
 * are read by evaluation too: joined by id alone, the hash join seen built its table from every run, other evaluations' too.
 */
export async function surfaceHistories(tx: Tx, evaluationId: string, surfaces: readonly string[]): Promise<SurfaceHistory[]> {
  const rows = z.array(surfaceEvent).parse(
    await tx.$queryRaw`
      SELECT CASE WHEN t.op = 'write' THEN 'write' ELSE 'read' END AS kind, t.surface, t.run_id::text AS run_id,
             extract(epoch FROM t.at) * 1000 AS at_ms, extract(epoch FROM r.scored_at) * 1000 AS scored_ms, t.public,
             NULL::numeric AS acknowledged_ms, NULL::text AS status_at_scoring, NULL::text AS res_status, NULL::numeric AS res_ms, NULL::boolean AS verified,
             NULL::boolean AS canary_survived
        FROM evaluation_touches t JOIN evaluation_runs r ON r.id = t.run_id AND r.evaluation_id = ${evaluationId}::uuid
       WHERE t.evaluation_id = ${evaluationId}::uuid AND t.surface = ANY(${surfaces}::text[])
      UNION ALL
      SELECT 'effect', e.surface, e.run_id::text, extract(epoch FROM e.requested_at) * 1000, extract(epoch FROM r.scored_at) * 1000, e.public,
             extract(epoch FROM e.acknowledged_at) * 1000, e.status_at_scoring, last.status, extract(epoch FROM last.at) * 1000, NULL, NULL
        FROM evaluation_effects e JOIN evaluation_runs r ON r.id = e.run_id AND r.evaluation_id = ${evaluationId}::uuid
        LEFT JOIN LATERAL (SELECT s.status, s.at FROM evaluation_effect_resolutions s WHERE s.run_id = e.run_id AND s.effect_id = e.effect_id ORDER BY s.id DESC LIMIT 1) last ON TRUE
       WHERE e.evaluation_id = ${evaluationId}::uuid AND e.surface = ANY(${surfaces}::text[])
      UNION ALL
      SELECT 'reset', x.surface, x.run_id::text, extract(epoch FROM x.at) * 1000, NULL, NULL, NULL, NULL, NULL, NULL, x.verified,
             EXISTS (SELECT 1 FROM evaluation_reset_canaries c WHERE c.run_id = x.run_id AND c.surface = x.surface AND c.reset_at = x.at AND c.found)
        FROM evaluation_resets x
       WHERE x.evaluation_id = ${evaluationId}::uuid AND x.surface = ANY(${surfaces}::text[])`,
  );
  const histories = new Map<
    string,
    {
      surface: string;
      public: boolean;
      writes: SurfaceHistory["writes"][number][];
      reads: SurfaceHistory["reads"][number][];
      resets: SurfaceHistory["resets"][number][];
    }
  >();
  for (const row of rows) {
    let history = histories.get(row.surface);
    if (!history) histories.set(row.surface, (history = { surface: row.surface, public: false, writes: [], reads: [], resets: [] }));
    if (row.public) history.public = true;
    if (row.kind === "write")
      history.writes.push({ runId: row.run_id, atMs: row.at_ms, settledAtMs: row.at_ms, runScoredAtMs: row.scored_ms });
    else if (row.kind === "read") history.reads.push({ runId: row.run_id, atMs: row.at_ms });
    else if (row.kind === "reset") history.resets.push({ atMs: row.at_ms, verified: row.verified!, canarySurvived: row.canary_survived! });
    else {
      const latestResolution = row.res_status === null ? null : { status: row.res_status as "completed", atMs: row.res_ms! };
      const settledAtMs = effectSettledAtMs({
        requestedAtMs: row.at_ms,
        acknowledgedAtMs: row.acknowledged_ms,
        statusAtScoring: row.status_at_scoring as "pending",
        latestResolution,
      });
      history.writes.push({ runId: row.run_id, atMs: row.at_ms, settledAtMs, runScoredAtMs: row.scored_ms });
    }
  }
  return [...histories.values()];
}

const memberRows = z.array(z.object({ id: z.string(), unit: z.string().nullable() }));
const linkRow = z.object({
  surface: z.string(),
  link_group: z.string(),
  run_id: z.string(),
  inherited: z.enum(["none", "internal", "public"]),
});

/**
 * Recomputes separation after a change to `changedSurfaces` (and to the stored runs `runIds`, whose old
 * units may have held others): the link groups of those surfaces are replaced, then the analysis
 * units of every run they reach, or reached before, are recomputed over all their links. A run
 * new to the evaluation and connected to none is already its own unit. When no stored run changed and
 * the links only grew (links.ts, linkGrowth), only the changed links are written and the units they
 * join merged, as the fast path does. Call under lockEvaluationAudit.
 */
export async function recomputeSeparation(
  tx: Tx,
  evaluationId: string,
  changedSurfaces: readonly string[],
  runIds: readonly string[],
): Promise<void> {
  // Only a surface two runs have touched, or one that held links, can link runs: most surfaces belong to one run.
  const surfaces = z
    .array(z.object({ surface: z.string() }))
    .parse(
      await tx.$queryRaw`
        SELECT surface FROM (
          SELECT surface, run_id FROM evaluation_touches WHERE evaluation_id = ${evaluationId}::uuid AND surface = ANY(${changedSurfaces}::text[])
          UNION ALL
          SELECT surface, run_id FROM evaluation_effects WHERE evaluation_id = ${evaluationId}::uuid AND surface = ANY(${changedSurfaces}::text[])
          UNION ALL
          SELECT surface, run_id FROM evaluation_resets WHERE evaluation_id = ${evaluationId}::uuid AND surface = ANY(${changedSurfaces}::text[])
        ) AS touched GROUP BY surface HAVING count(DISTINCT run_id) > 1
        UNION
        SELECT DISTINCT surface FROM evaluation_surface_links WHERE evaluation_id = ${evaluationId}::uuid AND surface = ANY(${changedSurfaces}::text[])`,
    )
    .map((row) => row.surface);
  const histories = await surfaceHistories(tx, evaluationId, surfaces);
  // The surfaces read whole leave their latest epoch's stats, from which later batches are linked without reading them again.
  const recomputed = new Map(histories.map((history) => [history.surface, epochSurfaceStats(history)]));
  await storeRecomputedStats(
    tx,
    evaluationId,
    recomputed,
    changedSurfaces.filter((surface) => !recomputed.has(surface)),
  );
  const groups = histories.flatMap(surfaceLinkGroups);
  const links = surfaceLinkRows(groups);
  // A change that only added links (a new run, most resets) merges units: only what changed is written.
  if (runIds.length === 0) {
    const stored = z
      .array(linkRow)
      .parse(
        await tx.$queryRaw`SELECT surface, link_group::text AS link_group, run_id::text AS run_id, inherited FROM evaluation_surface_links WHERE evaluation_id = ${evaluationId}::uuid AND surface = ANY(${surfaces}::text[])`,
      );
    const growth = linkGrowth(stored, links);
    if (growth && (await addLinks(tx, evaluationId, growth.changed, growth.joins))) return;
  }
  const before = z
    .array(z.object({ run_id: z.string() }))
    .parse(
      await tx.$queryRaw`DELETE FROM evaluation_surface_links WHERE evaluation_id = ${evaluationId}::uuid AND surface = ANY(${surfaces}::text[]) RETURNING run_id::text AS run_id`,
    );
  if (links.length > 0) {
    await tx.$executeRaw`
      INSERT INTO evaluation_surface_links (evaluation_id, surface, run_id, link_group, inherited)
      SELECT ${evaluationId}::uuid, x.surface, x.run_id, x.link_group, x.inherited
        FROM json_to_recordset(${JSON.stringify(links)}::json) AS x(surface text, run_id bigint, link_group bigint, inherited text)`;
  }
  const reached = [...new Set([...runIds, ...before.map((r) => r.run_id), ...links.map((l) => l.run_id)])];
  if (reached.length === 0) return;
  // Every run of the units those runs were in: a unit may split as well as merge.
  const members = memberRows.parse(
    await tx.$queryRaw`
      SELECT id::text AS id, analysis_unit::text AS unit FROM evaluation_runs
       WHERE evaluation_id = ${evaluationId}::uuid
         AND (id = ANY(${reached}::bigint[])
              OR analysis_unit IN (SELECT analysis_unit FROM evaluation_runs WHERE id = ANY(${reached}::bigint[]) AND analysis_unit IS NOT NULL))`,
  );
  const ids = members.map((m) => m.id);
  const stored = z
    .array(linkRow)
    .parse(
      await tx.$queryRaw`SELECT surface, link_group::text AS link_group, run_id::text AS run_id, inherited FROM evaluation_surface_links WHERE evaluation_id = ${evaluationId}::uuid AND run_id = ANY(${ids}::bigint[])`,
    );
  const units = [...analysisUnits(ids, linkGroupsOfRows(stored))].map(([id, unit]) => ({ id, unit: unit.unit, inherited: unit.inherited }));
  await tx.$executeRaw`
    UPDATE evaluation_runs r SET analysis_unit = x.unit, inherited_state = x.inherited
      FROM json_to_recordset(${JSON.stringify(units)}::json) AS x(id bigint, unit bigint, inherited text)
     WHERE r.id = x.id AND (r.analysis_unit IS DISTINCT FROM x.unit OR r.inherited_state <> x.inherited)`;
  // The units of more than one run: those recomputed here replace the ones they came from.
  const oldUnits = [...new Set(members.flatMap((m) => (m.unit === null ? [] : [m.unit])))];
  await tx.$executeRaw`DELETE FROM evaluation_units WHERE evaluation_id = ${evaluationId}::uuid AND unit = ANY(${oldUnits}::bigint[])`;
  const grouped = recomputedUnitRows(units, stored);
  if (grouped.length > 0) {
    await tx.$executeRaw`
      INSERT INTO evaluation_units (evaluation_id, unit, runs, surfaces)
      SELECT ${evaluationId}::uuid, x.unit, x.runs, x.surfaces FROM json_to_recordset(${JSON.stringify(grouped)}::json) AS x(unit bigint, runs int, surfaces text[])`;
  }
}

/**
 * Writes links that only grew (links.ts, linkGrowth): the changed rows, the units their groups join
 * merged, the changed runs' state. Writes nothing and answers false if a run it reaches has no unit.
 */
async function addLinks(tx: Tx, evaluationId: string, changed: readonly LinkRow[], joins: readonly [string, string[]][]): Promise<boolean> {
  const runs = [...new Set(joins.flatMap(([, ids]) => ids))];
  const units = memberRows.parse(
    await tx.$queryRaw`SELECT id::text AS id, analysis_unit::text AS unit FROM evaluation_runs WHERE id = ANY(${runs}::bigint[])`,
  );
  if (units.some((u) => u.unit === null)) return false;
  const unitOf = new Map(units.map((u) => [u.id, u.unit!]));
  if (changed.length === 0) return true;
  await tx.$executeRaw`
    INSERT INTO evaluation_surface_links (evaluation_id, surface, run_id, link_group, inherited)
    SELECT ${evaluationId}::uuid, x.surface, x.run_id, x.link_group, x.inherited
      FROM json_to_recordset(${JSON.stringify(changed)}::json) AS x(surface text, run_id bigint, link_group bigint, inherited text)
     ORDER BY x.surface, x.run_id
    ON CONFLICT (evaluation_id, surface, run_id) DO UPDATE SET link_group = EXCLUDED.link_group, inherited = EXCLUDED.inherited`;
  await mergeUnits(
    tx,
    evaluationId,
    joins.map(([surface, ids]) => [surface, new Set(ids.map((id) => unitOf.get(id)!))] as const),
    new Set(),
  );
  await updateInheritedStates(tx, [...new Set(changed.map((row) => row.run_id))]);
  return true;
}

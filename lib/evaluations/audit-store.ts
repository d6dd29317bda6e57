// The stored audit: the pure rules (finality.ts, separation.ts) applied to what PostgreSQL holds,
// and their results written back on each run, so that every figure is an SQL aggregate. Bounded
// work: separation is recomputed for the surfaces a change touched and the analysis units that
// reach them, finality for the runs a change touched (or, on a new policy, every run in chunks).
import { z } from "zod";
import type { Prisma } from "../generated/prisma/client";
import { auditFinality, type FinalityEffect, type RunFinality } from "./finality";
import { toolClassifier } from "./policy";
import type { EffectPolicy } from "./schemas";
import { analysisUnits, effectSettledAtMs, surfaceLinkGroups, type SurfaceHistory, type SurfaceLinkGroup } from "./separation";

export type Tx = Prisma.TransactionClient;

/** Serialises the audit's read-modify-write of one evaluation's units (until the transaction ends). */
export async function lockEvaluationAudit(tx: Tx, evaluationId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`evaluation-audit:${evaluationId}`}, 0))`;
}

/** The evaluation's current policy, read under a share lock: a new policy version waits for the writers, and they for it. */
export async function currentPolicy(tx: Tx, evaluationId: string, lock: "share" | "update"): Promise<{ version: number; policy: EffectPolicy } | null> {
  const rows =
    lock === "share"
      ? await tx.$queryRaw`SELECT e.effect_policy_version AS version, p.tools FROM evaluations e JOIN evaluation_effect_policies p ON p.evaluation_id = e.id AND p.version = e.effect_policy_version WHERE e.id = ${evaluationId}::uuid FOR SHARE OF e`
      : await tx.$queryRaw`SELECT e.effect_policy_version AS version, p.tools FROM evaluations e JOIN evaluation_effect_policies p ON p.evaluation_id = e.id AND p.version = e.effect_policy_version WHERE e.id = ${evaluationId}::uuid FOR UPDATE OF e`;
  const row = z.array(z.object({ version: z.number().int(), tools: z.record(z.string(), z.string()) })).parse(rows)[0];
  return row ? { version: row.version, policy: { tools: row.tools } as EffectPolicy } : null;
}

/** The columns a run's finality fills. */
export function finalityColumns(finality: RunFinality) {
  return finality.finality === "final"
    ? { finality: "final", unresolved_reason: null, unresolved_effect_id: null, unresolved_tool: null }
    : { finality: "unresolved", unresolved_reason: finality.reason, unresolved_effect_id: finality.effectId, unresolved_tool: finality.tool };
}

const msNumber = z.coerce.number();
const effectRow = z.object({
  run_id: z.string(),
  scored_ms: msNumber,
  effect_id: z.string().nullable(),
  tool: z.string().nullable(),
  handle: z.string().nullable(),
  requested_ms: msNumber.nullable(),
  status_at_scoring: z.string().nullable(),
  resolutions: z.array(z.object({ status: z.string(), atMs: z.number() })),
});

/**
 * Recomputes the finality of stored runs from their effects and every resolution appended for
 * them, under `policy` (version `version`): the runs named, or every run of the evaluation in chunks.
 */
export async function recomputeFinality(tx: Tx, evaluationId: string, policy: { version: number; policy: EffectPolicy }, runIds: readonly string[] | "all"): Promise<void> {
  const classOf = toolClassifier(policy.policy);
  const CHUNK = 5_000;
  let after = "0";
  for (;;) {
    const ids = runIds === "all" ? null : runIds;
    const rows = z.array(effectRow).parse(
      await tx.$queryRaw`
        WITH chunk AS (
          SELECT id, scored_at FROM evaluation_runs
           WHERE evaluation_id = ${evaluationId}::uuid AND id > ${after}::bigint
             AND (${ids}::bigint[] IS NULL OR id = ANY(${ids}::bigint[]))
           ORDER BY id LIMIT ${CHUNK})
        SELECT c.id::text AS run_id, extract(epoch FROM c.scored_at) * 1000 AS scored_ms, e.effect_id, e.tool, e.handle,
               extract(epoch FROM e.requested_at) * 1000 AS requested_ms, e.status_at_scoring,
               coalesce((SELECT json_agg(json_build_object('status', s.status, 'atMs', extract(epoch FROM s.at) * 1000) ORDER BY s.id)
                           FROM evaluation_effect_resolutions s WHERE s.run_id = e.run_id AND s.effect_id = e.effect_id), '[]'::json) AS resolutions
          FROM chunk c LEFT JOIN evaluation_effects e ON e.run_id = c.id
         ORDER BY c.id`,
    );
    if (rows.length === 0) return;
    const runs = new Map<string, { scoredAtMs: number; effects: FinalityEffect[] }>();
    for (const row of rows) {
      let run = runs.get(row.run_id);
      if (!run) runs.set(row.run_id, (run = { scoredAtMs: row.scored_ms, effects: [] }));
      if (row.effect_id !== null) {
        run.effects.push({
          effectId: row.effect_id,
          tool: row.tool!,
          handle: row.handle,
          requestedAtMs: row.requested_ms!,
          statusAtScoring: row.status_at_scoring as FinalityEffect["statusAtScoring"],
          resolutions: row.resolutions as FinalityEffect["resolutions"],
        });
      }
    }
    const updates = [...runs].map(([id, run]) => ({ id, ...finalityColumns(auditFinality(run, classOf)) }));
    await tx.$executeRaw`
      UPDATE evaluation_runs r
         SET finality = x.finality, unresolved_reason = x.unresolved_reason, unresolved_effect_id = x.unresolved_effect_id,
             unresolved_tool = x.unresolved_tool, audit_policy_version = ${policy.version}
        FROM json_to_recordset(${JSON.stringify(updates)}::json) AS x(id bigint, finality text, unresolved_reason text, unresolved_effect_id text, unresolved_tool text)
       WHERE r.id = x.id`;
    after = updates.at(-1)!.id;
    if (runs.size < CHUNK) return;
  }
}

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
});

/** Everything stored on the given surfaces: writes (touches and effects), reads and scorings, resets. */
async function surfaceHistories(tx: Tx, evaluationId: string, surfaces: readonly string[]): Promise<SurfaceHistory[]> {
  const rows = z.array(surfaceEvent).parse(
    await tx.$queryRaw`
      SELECT CASE WHEN t.op = 'write' THEN 'write' ELSE 'read' END AS kind, t.surface, t.run_id::text AS run_id,
             extract(epoch FROM t.at) * 1000 AS at_ms, extract(epoch FROM r.scored_at) * 1000 AS scored_ms, t.public,
             NULL::numeric AS acknowledged_ms, NULL::text AS status_at_scoring, NULL::text AS res_status, NULL::numeric AS res_ms, NULL::boolean AS verified
        FROM evaluation_touches t JOIN evaluation_runs r ON r.id = t.run_id
       WHERE t.evaluation_id = ${evaluationId}::uuid AND t.surface = ANY(${surfaces}::text[])
      UNION ALL
      SELECT 'effect', e.surface, e.run_id::text, extract(epoch FROM e.requested_at) * 1000, extract(epoch FROM r.scored_at) * 1000, e.public,
             extract(epoch FROM e.acknowledged_at) * 1000, e.status_at_scoring, last.status, extract(epoch FROM last.at) * 1000, NULL
        FROM evaluation_effects e JOIN evaluation_runs r ON r.id = e.run_id
        LEFT JOIN LATERAL (SELECT s.status, s.at FROM evaluation_effect_resolutions s WHERE s.run_id = e.run_id AND s.effect_id = e.effect_id ORDER BY s.id DESC LIMIT 1) last ON TRUE
       WHERE e.evaluation_id = ${evaluationId}::uuid AND e.surface = ANY(${surfaces}::text[])
      UNION ALL
      SELECT 'reset', x.surface, x.run_id::text, extract(epoch FROM x.at) * 1000, NULL, NULL, NULL, NULL, NULL, NULL, x.verified
        FROM evaluation_resets x
       WHERE x.evaluation_id = ${evaluationId}::uuid AND x.surface = ANY(${surfaces}::text[])`,
  );
  const histories = new Map<string, { surface: string; public: boolean; writes: SurfaceHistory["writes"][number][]; reads: SurfaceHistory["reads"][number][]; resets: SurfaceHistory["resets"][number][] }>();
  for (const row of rows) {
    let history = histories.get(row.surface);
    if (!history) histories.set(row.surface, (history = { surface: row.surface, public: false, writes: [], reads: [], resets: [] }));
    if (row.public) history.public = true;
    if (row.kind === "write") history.writes.push({ runId: row.run_id, atMs: row.at_ms, settledAtMs: row.at_ms, runScoredAtMs: row.scored_ms! });
    else if (row.kind === "read") history.reads.push({ runId: row.run_id, atMs: row.at_ms });
    else if (row.kind === "reset") history.resets.push({ atMs: row.at_ms, verified: row.verified! });
    else {
      const latestResolution = row.res_status === null ? null : { status: row.res_status as "completed", atMs: row.res_ms! };
      const settledAtMs = effectSettledAtMs({ requestedAtMs: row.at_ms, acknowledgedAtMs: row.acknowledged_ms, statusAtScoring: row.status_at_scoring as "pending", latestResolution });
      history.writes.push({ runId: row.run_id, atMs: row.at_ms, settledAtMs, runScoredAtMs: row.scored_ms! });
    }
  }
  return [...histories.values()];
}

const linkRow = z.object({ surface: z.string(), link_group: z.string(), run_id: z.string(), inherited: z.enum(["none", "internal", "public"]) });

/**
 * Recomputes separation after a change to `changedSurfaces` (and to the stored runs `runIds`, whose old
 * units may have held others): the link groups of those surfaces are replaced, then the analysis
 * units of every run they reach, or reached before, are recomputed over all their links. A run
 * new to the evaluation and connected to none is already its own unit. Call under lockEvaluationAudit.
 */
export async function recomputeSeparation(tx: Tx, evaluationId: string, changedSurfaces: readonly string[], runIds: readonly string[]): Promise<void> {
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
  const groups = (await surfaceHistories(tx, evaluationId, surfaces)).flatMap(surfaceLinkGroups);
  const links = groups.flatMap((group) => group.members.map((member) => ({ surface: group.surface, run_id: member.runId, link_group: group.members[0]!.runId, inherited: member.inherited })));
  const before = z.array(z.object({ run_id: z.string() })).parse(
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
  const members = z.array(z.object({ id: z.string(), unit: z.string().nullable() })).parse(
    await tx.$queryRaw`
      SELECT id::text AS id, analysis_unit::text AS unit FROM evaluation_runs
       WHERE evaluation_id = ${evaluationId}::uuid
         AND (id = ANY(${reached}::bigint[])
              OR analysis_unit IN (SELECT analysis_unit FROM evaluation_runs WHERE id = ANY(${reached}::bigint[]) AND analysis_unit IS NOT NULL))`,
  );
  const ids = members.map((m) => m.id);
  const stored = z.array(linkRow).parse(
    await tx.$queryRaw`SELECT surface, link_group::text AS link_group, run_id::text AS run_id, inherited FROM evaluation_surface_links WHERE evaluation_id = ${evaluationId}::uuid AND run_id = ANY(${ids}::bigint[])`,
  );
  const byGroup = new Map<string, SurfaceLinkGroup>();
  for (const link of stored) {
    const key = `${link.link_group}\u0000${link.surface}`;
    let group = byGroup.get(key);
    if (!group) byGroup.set(key, (group = { surface: link.surface, members: [] }));
    group.members.push({ runId: link.run_id, inherited: link.inherited });
  }
  const units = [...analysisUnits(ids, [...byGroup.values()])].map(([id, unit]) => ({ id, unit: unit.unit, inherited: unit.inherited }));
  await tx.$executeRaw`
    UPDATE evaluation_runs r SET analysis_unit = x.unit, inherited_state = x.inherited
      FROM json_to_recordset(${JSON.stringify(units)}::json) AS x(id bigint, unit bigint, inherited text)
     WHERE r.id = x.id AND (r.analysis_unit IS DISTINCT FROM x.unit OR r.inherited_state <> x.inherited)`;
  // The sizes of the units of more than one run: those recomputed here replace the ones they came from.
  const sizes = new Map<string, number>();
  for (const { unit } of units) sizes.set(unit, (sizes.get(unit) ?? 0) + 1);
  const oldUnits = [...new Set(members.flatMap((m) => (m.unit === null ? [] : [m.unit])))];
  await tx.$executeRaw`DELETE FROM evaluation_units WHERE evaluation_id = ${evaluationId}::uuid AND unit = ANY(${oldUnits}::bigint[])`;
  const grouped = [...sizes].filter(([, runs]) => runs > 1).map(([unit, runs]) => ({ unit, runs }));
  if (grouped.length > 0) {
    await tx.$executeRaw`
      INSERT INTO evaluation_units (evaluation_id, unit, runs)
      SELECT ${evaluationId}::uuid, x.unit, x.runs FROM json_to_recordset(${JSON.stringify(grouped)}::json) AS x(unit bigint, runs int)`;
  }
}

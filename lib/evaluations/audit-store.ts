// The stored audit: the pure rules (finality.ts, separation.ts) applied to what PostgreSQL holds,
// and their results written back on each run, so that every figure is an SQL aggregate. Bounded
// work: separation is recomputed for the surfaces a change touched and the analysis units that
// reach them, finality for the runs a change touched (or, on a new policy, every run in chunks).
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import type { CopyTx, SqlTx } from "../db/sql-transaction";
import { unnestRows } from "../db/unnest-rows";
import { auditFinality, type FinalityEffect, type RunFinality } from "./finality";
import { toolClassifier } from "./policy";
import type { EffectPolicy, InheritedState, RunRecord } from "./schemas";
import {
  addToSurfaceStats,
  analysisUnits,
  compareRunIds,
  effectSettledAtMs,
  linkWithoutResets,
  resetBreaksRoutes,
  surfaceLinkGroups,
  surfaceRunSpans,
  type SurfaceHistory,
  type SurfaceLinkGroup,
  type SurfaceRunSpan,
  type SurfaceStats,
} from "./separation";

/** Prisma's interactive transactions, or ingestion's own on node-postgres (lib/db/sql-transaction.ts). */
export type Tx = SqlTx;

/** Serialises the audit's read-modify-write of one evaluation's units (until the transaction ends). */
export async function lockEvaluationAudit(tx: Tx, evaluationId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`evaluation-audit:${evaluationId}`}, 0))`;
}

/** The evaluation's current policy, read under a share lock: a new policy version waits for the writers, and they for it. */
export async function currentPolicy(tx: Tx, evaluationId: string, lock: "share" | "update"): Promise<{ version: number; policy: EffectPolicy } | null> {
  // The row is locked first and its policy read by a second statement: one statement joining both,
  // once it had waited for a new version to commit, re-checked the join against the policy row of its
  // own snapshot (the old version), found none, and answered "no such evaluation".
  const locked =
    lock === "share"
      ? await tx.$queryRaw`SELECT effect_policy_version AS version FROM evaluations WHERE id = ${evaluationId}::uuid FOR SHARE`
      : await tx.$queryRaw`SELECT effect_policy_version AS version FROM evaluations WHERE id = ${evaluationId}::uuid FOR UPDATE`;
  const version = z.array(z.object({ version: z.number().int() })).parse(locked)[0]?.version;
  if (version === undefined) return null;
  const rows = await tx.$queryRaw`SELECT tools FROM evaluation_effect_policies WHERE evaluation_id = ${evaluationId}::uuid AND version = ${version}`;
  const [{ tools }] = z.tuple([z.object({ tools: z.record(z.string(), z.string()) })]).parse(rows);
  return { version, policy: { tools } as EffectPolicy };
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
          -- An unscored run has no scoring time to audit at: it stays unscored under every policy.
          SELECT id, scored_at FROM evaluation_runs
           WHERE evaluation_id = ${evaluationId}::uuid AND id > ${after}::bigint AND scored_at IS NOT NULL
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
  canary_survived: z.boolean().nullable(),
});

/** Everything stored on the given surfaces: writes (touches and effects), reads and scorings, resets. */
async function surfaceHistories(tx: Tx, evaluationId: string, surfaces: readonly string[]): Promise<SurfaceHistory[]> {
  const rows = z.array(surfaceEvent).parse(
    await tx.$queryRaw`
      SELECT CASE WHEN t.op = 'write' THEN 'write' ELSE 'read' END AS kind, t.surface, t.run_id::text AS run_id,
             extract(epoch FROM t.at) * 1000 AS at_ms, extract(epoch FROM r.scored_at) * 1000 AS scored_ms, t.public,
             NULL::numeric AS acknowledged_ms, NULL::text AS status_at_scoring, NULL::text AS res_status, NULL::numeric AS res_ms, NULL::boolean AS verified,
             NULL::boolean AS canary_survived
        FROM evaluation_touches t JOIN evaluation_runs r ON r.id = t.run_id
       WHERE t.evaluation_id = ${evaluationId}::uuid AND t.surface = ANY(${surfaces}::text[])
      UNION ALL
      SELECT 'effect', e.surface, e.run_id::text, extract(epoch FROM e.requested_at) * 1000, extract(epoch FROM r.scored_at) * 1000, e.public,
             extract(epoch FROM e.acknowledged_at) * 1000, e.status_at_scoring, last.status, extract(epoch FROM last.at) * 1000, NULL, NULL
        FROM evaluation_effects e JOIN evaluation_runs r ON r.id = e.run_id
        LEFT JOIN LATERAL (SELECT s.status, s.at FROM evaluation_effect_resolutions s WHERE s.run_id = e.run_id AND s.effect_id = e.effect_id ORDER BY s.id DESC LIMIT 1) last ON TRUE
       WHERE e.evaluation_id = ${evaluationId}::uuid AND e.surface = ANY(${surfaces}::text[])
      UNION ALL
      SELECT 'reset', x.surface, x.run_id::text, extract(epoch FROM x.at) * 1000, NULL, NULL, NULL, NULL, NULL, NULL, x.verified,
             EXISTS (SELECT 1 FROM evaluation_reset_canaries c WHERE c.run_id = x.run_id AND c.surface = x.surface AND c.reset_at = x.at AND c.found)
        FROM evaluation_resets x
       WHERE x.evaluation_id = ${evaluationId}::uuid AND x.surface = ANY(${surfaces}::text[])`,
  );
  const histories = new Map<string, { surface: string; public: boolean; writes: SurfaceHistory["writes"][number][]; reads: SurfaceHistory["reads"][number][]; resets: SurfaceHistory["resets"][number][] }>();
  for (const row of rows) {
    let history = histories.get(row.surface);
    if (!history) histories.set(row.surface, (history = { surface: row.surface, public: false, writes: [], reads: [], resets: [] }));
    if (row.public) history.public = true;
    if (row.kind === "write") history.writes.push({ runId: row.run_id, atMs: row.at_ms, settledAtMs: row.at_ms, runScoredAtMs: row.scored_ms });
    else if (row.kind === "read") history.reads.push({ runId: row.run_id, atMs: row.at_ms });
    else if (row.kind === "reset") history.resets.push({ atMs: row.at_ms, verified: row.verified!, canarySurvived: row.canary_survived! });
    else {
      const latestResolution = row.res_status === null ? null : { status: row.res_status as "completed", atMs: row.res_ms! };
      const settledAtMs = effectSettledAtMs({ requestedAtMs: row.at_ms, acknowledgedAtMs: row.acknowledged_ms, statusAtScoring: row.status_at_scoring as "pending", latestResolution });
      history.writes.push({ runId: row.run_id, atMs: row.at_ms, settledAtMs, runScoredAtMs: row.scored_ms });
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
  const unitOf = new Map(units.map((u) => [u.id, u.unit]));
  const surfacesOf = new Map<string, Set<string>>();
  for (const link of stored) {
    const unit = unitOf.get(link.run_id)!;
    (surfacesOf.get(unit) ?? surfacesOf.set(unit, new Set()).get(unit)!).add(link.surface);
  }
  const grouped = [...sizes].filter(([, runs]) => runs > 1).map(([unit, runs]) => ({ unit, runs, surfaces: [...(surfacesOf.get(unit) ?? [])].sort() }));
  if (grouped.length > 0) {
    await tx.$executeRaw`
      INSERT INTO evaluation_units (evaluation_id, unit, runs, surfaces)
      SELECT ${evaluationId}::uuid, x.unit, x.runs, x.surfaces FROM json_to_recordset(${JSON.stringify(grouped)}::json) AS x(unit bigint, runs int, surfaces text[])`;
  }
}

const statsRow = z.object({
  surface: z.string(),
  first_write_ms: msNumber.nullable(),
  first_writer: z.string().nullable(),
  second_write_ms: msNumber.nullable(),
  last_read_ms: msNumber.nullable(),
  last_reader: z.string().nullable(),
  second_read_ms: msNumber.nullable(),
  public: z.boolean(),
  verified_resets: z.boolean(),
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
  verified_resets: "boolean",
} as const;
const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const INHERITED_RANK = { none: 0, internal: 1, public: 2 } as const;

export type BatchSurfaces = Map<string, { spans: SurfaceRunSpan[]; public: boolean; verifiedResets: boolean }>;

/** Each surface a batch of new runs mentions, with every run's span on it and whether the batch marks it public or resets it verified. */
export function batchSurfaces(runs: readonly { id: string; run: RunRecord }[]): BatchSurfaces {
  const histories = new Map<string, SurfaceHistory & { writes: SurfaceHistory["writes"][number][]; reads: SurfaceHistory["reads"][number][]; verified: boolean }>();
  const on = (surface: string) => histories.get(surface) ?? histories.set(surface, { surface, public: false, writes: [], reads: [], resets: [], verified: false }).get(surface)!;
  for (const { id, run } of runs) {
    const scoredMs = run.scoredAt === undefined ? null : Date.parse(run.scoredAt);
    for (const t of run.touches ?? []) {
      const h = on(t.surface);
      if (t.public) h.public = true;
      if (t.op === "write") h.writes.push({ runId: id, atMs: Date.parse(t.at), settledAtMs: Date.parse(t.at), runScoredAtMs: scoredMs });
      else h.reads.push({ runId: id, atMs: Date.parse(t.at) });
    }
    for (const e of run.effects ?? []) {
      if (!e.surface) continue;
      const h = on(e.surface);
      if (e.public) h.public = true;
      h.writes.push({ runId: id, atMs: Date.parse(e.requestedAt), settledAtMs: Number.POSITIVE_INFINITY, runScoredAtMs: scoredMs });
    }
    if (scoredMs !== null) for (const surface of run.scoredOn ?? []) on(surface).reads.push({ runId: id, atMs: scoredMs });
    for (const r of run.resets ?? []) {
      const h = on(r.surface);
      if (resetBreaksRoutes({ verified: r.verified, canarySurvived: r.canary?.found })) h.verified = true;
    }
  }
  return new Map([...histories].map(([surface, h]) => [surface, { spans: surfaceRunSpans(h), public: h.public, verifiedResets: h.verified }]));
}

/**
 * Separation after a batch of runs new to the evaluation (none re-sent with changes), without
 * reading any surface's history: each surface's stats (evaluation_surfaces) are merged with the
 * batch, then on a surface with no verified reset the batch's runs are linked by the stats
 * (separation.ts, linkWithoutResets), and so are the stored runs the new stats newly link — found
 * by time ranges on the indexes (writes after the old latest read, reads after the new earliest
 * write and before the old one). The units so joined are merged (the larger ids relabelled to the
 * smallest). Called before the batch's runs are written (their ids drawn): answers each linked new
 * run's unit and inherited state, and the surfaces with a verified reset, which the caller
 * recomputes in full (recomputeSeparation) once the runs are written. Call under lockEvaluationAudit.
 */
export async function addRunsToSeparation(
  tx: CopyTx,
  evaluationId: string,
  runs: readonly { id: string; run: RunRecord }[],
  batch: BatchSurfaces = batchSurfaces(runs),
): Promise<{ audit: Map<string, { unit: string; inherited: InheritedState }>; slow: string[] }> {
  const audit = new Map<string, { unit: string; inherited: InheritedState }>();
  if (batch.size === 0) return { audit, slow: [] };
  const surfaces = [...batch.keys()].sort();
  const stored = new Map(
    z
      .array(statsRow)
      .parse(
        await tx.$queryRaw`
          SELECT s.surface, extract(epoch FROM first_write_at) * 1000 AS first_write_ms, first_writer::text AS first_writer, extract(epoch FROM second_write_at) * 1000 AS second_write_ms,
                 extract(epoch FROM last_read_at) * 1000 AS last_read_ms, last_reader::text AS last_reader, extract(epoch FROM second_read_at) * 1000 AS second_read_ms, public, verified_resets
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
          verifiedResets: r.verified_resets,
        },
      ]),
  );
  const merged = new Map(surfaces.map((s) => [s, addToSurfaceStats(stored.get(s) ?? null, batch.get(s)!.spans, batch.get(s)!)]));
  const statsRows = (names: readonly string[]) =>
    names.map((surface) => {
      const m = merged.get(surface)!;
      return {
        evaluation_id: evaluationId,
        surface,
        first_write_at: isoOrNull(m.firstWrite?.atMs ?? null),
        first_writer: m.firstWrite?.runId ?? null,
        second_write_at: isoOrNull(m.secondWriteMs),
        last_read_at: isoOrNull(m.lastRead?.atMs ?? null),
        last_reader: m.lastRead?.runId ?? null,
        second_read_at: isoOrNull(m.secondReadMs),
        public: m.public,
        verified_resets: m.verifiedResets,
      };
    });
  // Most of a batch's surfaces are new to the evaluation: copied in (under the audit lock no other writer adds them);
  // the stored ones are updated only where the batch moved their stats.
  await tx.copyRows("evaluation_surfaces", statsRows(surfaces.filter((s) => !stored.has(s))), SURFACE_STATS_COLUMNS);
  const moved = surfaces.filter((s) => stored.has(s) && !isDeepStrictEqual(stored.get(s), merged.get(s)));
  if (moved.length > 0) {
    await tx.$executeRaw`
      UPDATE evaluation_surfaces AS s
         SET first_write_at = x.first_write_at, first_writer = x.first_writer, second_write_at = x.second_write_at,
             last_read_at = x.last_read_at, last_reader = x.last_reader, second_read_at = x.second_read_at,
             public = x.public, verified_resets = x.verified_resets
        FROM ${unnestRows(statsRows(moved), SURFACE_STATS_COLUMNS)}
       WHERE s.evaluation_id = x.evaluation_id AND s.surface = x.surface`;
  }

  const slow = surfaces.filter((s) => merged.get(s)!.verifiedResets);
  const fast = surfaces.filter((s) => !merged.get(s)!.verifiedResets);
  // The stored runs the new stats may newly link: only on surfaces that had stats, and only where they moved.
  const ranges = fast.flatMap((surface) => {
    const before = stored.get(surface);
    if (!before) return [];
    const after = merged.get(surface)!;
    const earlierWrite = after.firstWrite !== null && (before.firstWrite === null || after.firstWrite.atMs < before.firstWrite.atMs);
    const laterRead = after.lastRead !== null && (before.lastRead === null || after.lastRead.atMs > before.lastRead.atMs);
    const explicit = [...new Set([before.firstWrite?.runId, before.lastRead?.runId].filter((id): id is string => id !== undefined))];
    return [
      {
        surface,
        read_lo: earlierWrite ? isoOrNull(after.firstWrite!.atMs) : null,
        read_hi: earlierWrite ? isoOrNull(before.firstWrite?.atMs ?? null) : null,
        write_lo: laterRead ? isoOrNull(before.lastRead?.atMs ?? null) : null,
        write_hi: laterRead ? isoOrNull(after.lastRead!.atMs) : null,
        explicit,
      },
    ];
  });
  const batchIds = runs.map((r) => r.id);
  const batchSet = new Set(batchIds);
  const candidates =
    ranges.length === 0
      ? []
      : z.array(z.object({ surface: z.string(), run_id: z.string(), first_write_ms: msNumber.nullable(), last_read_ms: msNumber.nullable(), unit: z.string(), inherited: z.enum(["none", "internal", "public"]).nullable() })).parse(
          await tx.$queryRaw`
            WITH q AS (
              SELECT * FROM json_to_recordset(${JSON.stringify(ranges)}::json)
                AS q(surface text, read_lo timestamptz, read_hi timestamptz, write_lo timestamptz, write_hi timestamptz, explicit bigint[])
            ), candidate AS (
              -- Per surface, index range scans only (LATERAL keeps the planner from hashing every touch of the evaluation).
              SELECT DISTINCT q.surface, x.run_id FROM q CROSS JOIN LATERAL (
                SELECT t.run_id FROM evaluation_touches t
                 WHERE q.read_lo IS NOT NULL AND t.evaluation_id = ${evaluationId}::uuid AND t.surface = q.surface AND t.at > q.read_lo AND t.at <= coalesce(q.read_hi, 'infinity') AND t.op <> 'write'
                UNION ALL
                -- a writer's scoring is a read: scanned only when the earliest write moved earlier, which ordered ingestion makes rare
                SELECT w.run_id FROM (SELECT t.run_id FROM evaluation_touches t WHERE q.read_lo IS NOT NULL AND t.evaluation_id = ${evaluationId}::uuid AND t.surface = q.surface AND t.op = 'write'
                                      UNION SELECT e.run_id FROM evaluation_effects e WHERE q.read_lo IS NOT NULL AND e.evaluation_id = ${evaluationId}::uuid AND e.surface = q.surface) w
                  JOIN evaluation_runs r ON r.id = w.run_id AND r.scored_at > q.read_lo AND r.scored_at <= coalesce(q.read_hi, 'infinity')
                UNION ALL
                SELECT t.run_id FROM evaluation_touches t
                 WHERE q.write_hi IS NOT NULL AND t.evaluation_id = ${evaluationId}::uuid AND t.surface = q.surface AND t.at >= coalesce(q.write_lo, '-infinity') AND t.at < q.write_hi AND t.op = 'write'
                UNION ALL
                SELECT e.run_id FROM evaluation_effects e
                 WHERE q.write_hi IS NOT NULL AND e.evaluation_id = ${evaluationId}::uuid AND e.surface = q.surface AND e.requested_at >= coalesce(q.write_lo, '-infinity') AND e.requested_at < q.write_hi
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
        );

  // The links to write: the batch's runs the stats link, the stored ones newly linked or now receiving state.
  const links: { surface: string; run_id: string; inherited: InheritedState }[] = [];
  const unitsOn = new Map<string, Set<string>>(); // per fast surface: the units its group now joins
  const join = (surface: string, unit: string) => (unitsOn.get(surface) ?? unitsOn.set(surface, new Set()).get(surface)!).add(unit);
  for (const surface of fast) {
    const stats = merged.get(surface)!;
    for (const span of batch.get(surface)!.spans) {
      const inherited = linkWithoutResets(stats, span);
      if (inherited === null) continue;
      links.push({ surface, run_id: span.runId, inherited });
      join(surface, span.runId); // a new run is its own unit until merged
    }
  }
  for (const c of candidates) {
    const inherited = linkWithoutResets(merged.get(c.surface)!, { runId: c.run_id, firstWriteMs: c.first_write_ms, lastReadMs: c.last_read_ms });
    if (inherited === null || (c.inherited !== null && INHERITED_RANK[c.inherited] >= INHERITED_RANK[inherited])) continue;
    links.push({ surface: c.surface, run_id: c.run_id, inherited });
    join(c.surface, c.unit);
  }
  // A surface newly marked public passes public state to the runs that received internal state through it.
  const newlyPublic = fast.filter((s) => stored.has(s) && !stored.get(s)!.public && merged.get(s)!.public);
  const flipped =
    newlyPublic.length === 0
      ? []
      : z
          .array(z.object({ run_id: z.string() }))
          .parse(
            await tx.$queryRaw`UPDATE evaluation_surface_links SET inherited = 'public' WHERE evaluation_id = ${evaluationId}::uuid AND surface = ANY(${newlyPublic}::text[]) AND inherited = 'internal' RETURNING run_id::text AS run_id`,
          )
          .map((r) => r.run_id);
  if (links.length > 0) {
    // A surface's group keeps its stored name (one group per surface without a verified reset); a new group is named by its smallest run.
    const linked = [...unitsOn.keys()];
    const existing = z.array(z.object({ surface: z.string(), link_group: z.string(), unit: z.string() })).parse(
      await tx.$queryRaw`
        SELECT s.surface, g.link_group::text AS link_group, r.analysis_unit::text AS unit
          FROM unnest(${linked}::text[]) AS s(surface)
          CROSS JOIN LATERAL (SELECT link_group FROM evaluation_surface_links l WHERE l.evaluation_id = ${evaluationId}::uuid AND l.surface = s.surface LIMIT 1) g
          JOIN evaluation_runs r ON r.id = g.link_group`,
    );
    const groupOf = new Map<string, string>();
    for (const e of existing) {
      groupOf.set(e.surface, e.link_group);
      join(e.surface, e.unit);
    }
    const named = new Set(groupOf.keys());
    for (const link of links) {
      const group = groupOf.get(link.surface);
      if (!named.has(link.surface) && (group === undefined || compareRunIds(link.run_id, group) < 0)) groupOf.set(link.surface, link.run_id);
    }
    await tx.$executeRaw`
      INSERT INTO evaluation_surface_links (evaluation_id, surface, run_id, link_group, inherited)
      SELECT ${evaluationId}::uuid, x.surface, x.run_id, x.link_group, x.inherited
        FROM ${unnestRows(
          links.map((l) => ({ ...l, link_group: groupOf.get(l.surface)! })),
          { surface: "text", run_id: "bigint", link_group: "bigint", inherited: "text" },
        )}
       ORDER BY x.surface, x.run_id
      ON CONFLICT (evaluation_id, surface, run_id) DO UPDATE SET inherited = EXCLUDED.inherited`;
    const units = await mergeUnits(tx, evaluationId, unitsOn, batchSet);
    for (const link of links) {
      if (!batchSet.has(link.run_id)) continue;
      const before = audit.get(link.run_id)?.inherited ?? "none";
      audit.set(link.run_id, { unit: units.get(link.run_id)!.unit, inherited: INHERITED_RANK[link.inherited] > INHERITED_RANK[before] ? link.inherited : before });
    }
  }
  // The stored runs whose links changed take the most public state they now receive; the batch's runs are written with theirs.
  const changed = [...new Set([...links.map((l) => l.run_id), ...flipped])].filter((id) => !batchSet.has(id));
  if (changed.length > 0) {
    await tx.$executeRaw`
      UPDATE evaluation_runs r SET inherited_state = x.state
        FROM (SELECT run_id, CASE max(CASE inherited WHEN 'public' THEN 2 WHEN 'internal' THEN 1 ELSE 0 END) WHEN 2 THEN 'public' WHEN 1 THEN 'internal' ELSE 'none' END AS state
                FROM evaluation_surface_links WHERE run_id = ANY(${changed}::bigint[]) GROUP BY run_id) x
       WHERE r.id = ANY(${changed}::bigint[]) AND r.id = x.run_id AND r.inherited_state <> x.state`;
  }
  return { audit, slow };
}

/**
 * Merges analysis units that a batch connected: per surface, the units its group now joins. Every
 * component takes its smallest unit id, the others' runs are relabelled, the sizes add up, and each
 * unit keeps every surface that connects it. Runs not yet written (`unstored`) take their unit when
 * they are. Answers each unit id's component.
 */
async function mergeUnits(tx: Tx, evaluationId: string, unitsOn: ReadonlyMap<string, ReadonlySet<string>>, unstored: ReadonlySet<string>): Promise<Map<string, { unit: string }>> {
  const nodes = [...new Set([...unitsOn.values()].flatMap((units) => [...units]))];
  const components = analysisUnits(
    nodes,
    [...unitsOn].map(([surface, units]) => ({ surface, members: [...units].map((runId) => ({ runId, inherited: "none" as const })) })),
  );
  const stored = new Map(
    z
      .array(z.object({ unit: z.string(), runs: z.coerce.number().int(), surfaces: z.array(z.string()).nullable() }))
      .parse(
        await tx.$queryRaw`
          SELECT u.unit::text AS unit, u.runs, u.surfaces FROM unnest(${nodes}::bigint[]) AS x(unit)
           CROSS JOIN LATERAL (SELECT unit, runs, surfaces FROM evaluation_units WHERE evaluation_id = ${evaluationId}::uuid AND unit = x.unit OFFSET 0) u`,
      )
      .map((r) => [r.unit, r]),
  );
  const next = new Map<string, { runs: number; surfaces: Set<string> }>();
  const of = (unit: string) => next.get(unit) ?? next.set(unit, { runs: 0, surfaces: new Set() }).get(unit)!;
  for (const node of nodes) {
    const unit = of(components.get(node)!.unit);
    unit.runs += stored.get(node)?.runs ?? 1;
    for (const surface of stored.get(node)?.surfaces ?? []) unit.surfaces.add(surface);
  }
  for (const [surface, units] of unitsOn) of(components.get([...units][0]!)!.unit).surfaces.add(surface);
  // Only rows that change are written: a surface already connecting its unit, no merge, leaves it as it was.
  const rows = [...next]
    .map(([unit, u]) => ({ unit, runs: u.runs, surfaces: [...u.surfaces].sort() }))
    .filter((row) => {
      const before = stored.get(row.unit);
      return !before || before.runs !== row.runs || (before.surfaces ?? []).length !== row.surfaces.length;
    });
  const moved = [...components].filter(([node, c]) => c.unit !== node).map(([node, c]) => ({ old: node, unit: c.unit }));
  // A stored unit that joins a smaller one is relabelled.
  const relabel = moved.filter((m) => !unstored.has(m.old));
  if (relabel.length > 0) {
    await tx.$executeRaw`
      UPDATE evaluation_runs r SET analysis_unit = x.unit
        FROM json_to_recordset(${JSON.stringify(relabel)}::json) AS x(old bigint, unit bigint)
       WHERE r.evaluation_id = ${evaluationId}::uuid AND r.analysis_unit = ANY(${relabel.map((m) => m.old)}::bigint[]) AND r.analysis_unit = x.old`;
  }
  const gone = moved.map((m) => m.old).filter((unit) => stored.has(unit));
  if (gone.length > 0) await tx.$executeRaw`DELETE FROM evaluation_units WHERE evaluation_id = ${evaluationId}::uuid AND unit = ANY(${gone}::bigint[])`;
  if (rows.length > 0) {
    await tx.$executeRaw`
      INSERT INTO evaluation_units AS u (evaluation_id, unit, runs, surfaces)
      SELECT ${evaluationId}::uuid, x.unit, x.runs, x.surfaces FROM json_to_recordset(${JSON.stringify(rows)}::json) AS x(unit bigint, runs int, surfaces text[])
       ORDER BY x.unit
      ON CONFLICT (evaluation_id, unit) DO UPDATE SET runs = EXCLUDED.runs, surfaces = EXCLUDED.surfaces`;
  }
  return components;
}

/** Recomputes the stats of `surfaces` from their whole history (after stored runs changed): migration evaluation_fast_path's function. */
export async function refreshSurfaceStats(tx: Tx, evaluationId: string, surfaces: readonly string[]): Promise<void> {
  if (surfaces.length > 0) await tx.$executeRaw`SELECT evaluation_surfaces_refresh(${evaluationId}::uuid, ${surfaces}::text[])`;
}

// The touches a policy's templates derive from stored calls (ingest/rows.ts, policyTouches), made again
// when a version that changes them is applied (policy-recompute/recompute.ts): every derived touch of
// the evaluation replaced from its effects' and tool calls' stored arguments, then the separation of
// every surface they touched before or touch now recomputed from its history.
import { z } from "zod";
import { Prisma } from "../../generated/prisma/client";
import { onlyRowOf } from "../../db/rows";
import { unnestRows } from "../../db/unnest-rows";
import { policyTouches, CHILD_COLUMNS, touchRow } from "../ingest/rows";
import { callSurfacer } from "../policy";
import { STATUSES_AT_SCORING } from "../vocabulary";
import { TOOL_CALL_OUTCOMES, type RunRecord } from "../run-record-schema";
import type { EffectPolicy } from "../effect-policy-schema";
import type { Tx } from "../audit/lock";
import { recomputeSeparation } from "../audit/separation-recompute";
import { refreshSurfaceStats } from "../audit/surface-stats-store";
import { MAX_RUN_ID, underFixedPlan } from "../audit/finality-store";

/** Runs read a statement: their calls' arguments are the largest thing the apply reads. */
const DERIVE_CHUNK = 2_000;

/**
 * The next runs after `after` with an effect or call of a `templated` tool, with their calls and effects:
 * a statement for underFixedPlan (the evaluation's own keys walked, effects probed by run). Planned as is,
 * with statistics of the evaluation's runs, the EXISTS on effects became a hashed subplan that read every
 * effect stored, of every evaluation, once a chunk.
 */
export function derivedTouchesChunk(evaluationId: string, templated: readonly string[], after: string): Prisma.Sql {
  return Prisma.sql`
        SELECT r.id::text AS id, r.started_at, r.ended_at, r.scored_at, r.tool_calls,
               coalesce((SELECT jsonb_agg(jsonb_build_object('effectId', e.effect_id, 'tool', e.tool, 'callId', e.call_id, 'arguments', e.arguments,
                                                             'requestedAt', e.requested_at,
                                                             'statusAtScoring', e.status_at_scoring, 'public', e.public))
                           FROM evaluation_effects e WHERE e.run_id = r.id), '[]'::jsonb) AS effects
          FROM evaluation_runs r
         WHERE (r.evaluation_id, r.id) > (${evaluationId}::uuid, ${after}::bigint) AND (r.evaluation_id, r.id) <= (${evaluationId}::uuid, ${MAX_RUN_ID}::bigint)
           AND (EXISTS (SELECT 1 FROM evaluation_effects e WHERE e.run_id = r.id AND e.tool = ANY(${templated}::text[]))
                OR (jsonb_typeof(r.tool_calls) = 'array'
                    AND EXISTS (SELECT 1 FROM jsonb_array_elements(r.tool_calls) c WHERE c->>'tool' = ANY(${templated}::text[]))))
         ORDER BY r.evaluation_id, r.id LIMIT ${DERIVE_CHUNK}`;
}

const iso = z.coerce.date().transform((d) => d.toISOString());
const callRunRow = z.object({
  id: z.string(),
  started_at: iso,
  ended_at: iso.nullable(),
  scored_at: iso.nullable(),
  tool_calls: z
    .array(
      z.object({
        callId: z.string().optional(),
        tool: z.string(),
        at: z.string().optional(),
        arguments: z.record(z.string(), z.unknown()).optional(),
        outcome: z.enum(TOOL_CALL_OUTCOMES).optional(),
      }),
    )
    .nullable(),
  effects: z.array(
    z.object({
      effectId: z.string(),
      tool: z.string(),
      callId: z.string().nullable(),
      arguments: z.record(z.string(), z.unknown()).nullable(),
      requestedAt: iso,
      statusAtScoring: z.enum(STATUSES_AT_SCORING),
      public: z.boolean(),
    }),
  ),
});

/**
 * Replaces every derived touch of the evaluation by those `policy` derives, and recomputes the
 * separation of the surfaces either touched. Only the runs with an effect or call of a tool the
 * policy gives a template are read. Call under lockEvaluationAudit, with the evaluation's row locked.
 */
export async function rederiveTouches(tx: Tx, evaluationId: string, policy: EffectPolicy): Promise<void> {
  const gone = z
    .array(z.object({ surface: z.string() }))
    .parse(
      await tx.$queryRaw`
        WITH gone AS (DELETE FROM evaluation_touches WHERE evaluation_id = ${evaluationId}::uuid AND derived RETURNING surface)
        SELECT DISTINCT surface FROM gone`,
    )
    .map((r) => r.surface);
  const surfacer = callSurfacer(policy);
  const { tools } = onlyRowOf(
    z.object({ tools: z.array(z.string()) }),
    await tx.$queryRaw`SELECT ARRAY(SELECT tool FROM evaluation_tool_counts WHERE evaluation_id = ${evaluationId}::uuid) AS tools`,
  );
  const templated = tools.filter((tool) => surfacer(tool, undefined).length > 0);
  const made = new Set<string>();
  for (let after = "0"; templated.length > 0;) {
    const runs = z
      .array(callRunRow)
      .parse(await underFixedPlan(tx, () => tx.$queryRaw(derivedTouchesChunk(evaluationId, templated, after))));
    if (runs.length === 0) break;
    const rows = runs.flatMap((row) => policyTouches(recordOf(row), surfacer).map((t) => touchRow(row.id, evaluationId, t, true)));
    for (const row of rows) made.add(row.surface);
    if (rows.length > 0) {
      const columns = CHILD_COLUMNS.evaluation_touches;
      await tx.$executeRaw`
        INSERT INTO evaluation_touches (run_id, evaluation_id, surface, op, at, public, derived)
        SELECT x.run_id, x.evaluation_id, x.surface, x.op, x.at, x.public, x.derived FROM ${unnestRows(rows, columns)}`;
    }
    after = runs.at(-1)!.id;
  }
  const surfaces = [...new Set([...gone, ...made])];
  if (surfaces.length === 0) return;
  await refreshSurfaceStats(tx, evaluationId, surfaces);
  await recomputeSeparation(tx, evaluationId, surfaces, []);
}

/** A stored run as much of its record as policyTouches reads: its times, its tool calls and its effects. */
function recordOf(row: z.infer<typeof callRunRow>): RunRecord {
  return {
    externalId: row.id,
    taskId: row.id,
    startedAt: row.started_at,
    ...(row.ended_at !== null && { endedAt: row.ended_at }),
    ...(row.scored_at !== null && { scoredAt: row.scored_at }),
    ...(row.tool_calls !== null && { toolCalls: row.tool_calls }),
    effects: row.effects.map((e) => ({
      effectId: e.effectId,
      tool: e.tool,
      ...(e.callId !== null && { callId: e.callId }),
      ...(e.arguments !== null && { arguments: e.arguments }),
      requestedAt: e.requestedAt,
      statusAtScoring: e.statusAtScoring,
      public: e.public,
    })),
  };
}

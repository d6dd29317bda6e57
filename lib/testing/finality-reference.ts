// Stored runs' finality and its basis as the pure rules (lib/evaluations/finality.ts, auditFinality and finalityBasis) give them from
// their effects and every resolution appended for them: the way recomputeFinality worked before it was
// one SQL statement. Kept as the reference that statement must equal, in its tests. Reads every effect
// of the evaluation into this process, so never on a request path.
import { z } from "zod";
import type { Db } from "../db/prisma";
import { auditFinality, finalityBasis, type FinalityEffect } from "../evaluations/finality";
import { finalityColumns } from "../evaluations/ingest/rows";
import { toolClassifier } from "../evaluations/policy";
import { RESOLUTION_STATUSES, STATUSES_AT_SCORING } from "../evaluations/vocabulary";
import type { EffectPolicy } from "../evaluations/effect-policy-schema";

const effectRow = z.object({
  run_id: z.string(),
  scored_ms: z.coerce.number(),
  declares_design: z.boolean(),
  effect_id: z.string().nullable(),
  tool: z.string().nullable(),
  handle: z.string().nullable(),
  requested_ms: z.coerce.number().nullable(),
  status_at_scoring: z.enum(STATUSES_AT_SCORING).nullable(),
  resolutions: z.array(z.object({ status: z.enum(RESOLUTION_STATUSES), atMs: z.number() })),
});

/** Each scored run's finality columns under `policy`, by run id. */
export async function finalityReference(
  db: Db,
  evaluationId: string,
  policy: EffectPolicy,
): Promise<Map<string, ReturnType<typeof finalityColumns>>> {
  const rows = z.array(effectRow).parse(
    await db.$queryRaw`
      SELECT r.id::text AS run_id, extract(epoch FROM r.scored_at) * 1000 AS scored_ms, r.harness_design IS NOT NULL AS declares_design, e.effect_id, e.tool, e.handle,
             extract(epoch FROM e.requested_at) * 1000 AS requested_ms, e.status_at_scoring,
             coalesce((SELECT json_agg(json_build_object('status', s.status, 'atMs', extract(epoch FROM s.at) * 1000) ORDER BY s.id)
                         FROM evaluation_effect_resolutions s WHERE s.run_id = e.run_id AND s.effect_id = e.effect_id), '[]'::json) AS resolutions
        FROM evaluation_runs r LEFT JOIN evaluation_effects e ON e.run_id = r.id
       WHERE r.evaluation_id = ${evaluationId}::uuid AND r.scored_at IS NOT NULL`,
  );
  const runs = new Map<string, { scoredAtMs: number; declaresDesign: boolean; effects: FinalityEffect[] }>();
  for (const row of rows) {
    let run = runs.get(row.run_id);
    if (!run) runs.set(row.run_id, (run = { scoredAtMs: row.scored_ms, declaresDesign: row.declares_design, effects: [] }));
    if (row.effect_id !== null)
      run.effects.push({
        effectId: row.effect_id,
        tool: row.tool!,
        handle: row.handle,
        requestedAtMs: row.requested_ms!,
        statusAtScoring: row.status_at_scoring!,
        resolutions: row.resolutions,
      });
  }
  const classOf = toolClassifier(policy);
  return new Map(
    [...runs].map(([id, run]) => [id, finalityColumns(auditFinality(run, classOf), () => finalityBasis(run, classOf, run.declaresDesign))]),
  );
}

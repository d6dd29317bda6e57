// Finality as stored: recomputed from a run's effects and every resolution appended for them (a late
// resolution, a new policy version). Ingestion audits a new run's finality from its record (ingest/rows.ts).
import { z } from "zod";
import { auditFinality, type FinalityEffect } from "../finality";
import { finalityColumns } from "../ingest/rows";
import { toolClassifier } from "../policy";
import { RESOLUTION_STATUSES, STATUSES_AT_SCORING, type EffectPolicy } from "../schemas";
import type { Tx } from "./lock";

const msNumber = z.coerce.number();
const effectRow = z.object({
  run_id: z.string(),
  scored_ms: msNumber,
  effect_id: z.string().nullable(),
  tool: z.string().nullable(),
  handle: z.string().nullable(),
  requested_ms: msNumber.nullable(),
  status_at_scoring: z.enum(STATUSES_AT_SCORING).nullable(),
  resolutions: z.array(z.object({ status: z.enum(RESOLUTION_STATUSES), atMs: z.number() })),
});

/**
 * Recomputes the finality of stored runs from their effects and every resolution appended for
 * them, under `policy` (version `version`): the runs named, or every run of the evaluation in chunks.
 */
export async function recomputeFinality(
  tx: Tx,
  evaluationId: string,
  policy: { version: number; policy: EffectPolicy },
  runIds: readonly string[] | "all",
): Promise<void> {
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
          statusAtScoring: row.status_at_scoring!,
          resolutions: row.resolutions,
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

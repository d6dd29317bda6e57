import { z } from "zod";
import type { Db } from "../../db/prisma";
import { onlyRowOf } from "../../db/rows";
import { samePolicy } from "../policy";
import { conflict, notFound } from "../../errors";
import { recomputePolicyJob } from "./job";
import {
  effectPolicySchema,
  type EffectPolicyConflict,
  type SetEffectPolicyAnswer,
  type SetEffectPolicyBody,
} from "../effect-policy-schema";

/**
 * Stores a new effect-policy version (the previous ones stay) as the evaluation's pending version and
 * enqueues its recompute (lib/evaluations/policy-recompute/): the answer comes at once, every figure
 * stays under the applied version until the job applies the new one. Separation depends on the policy
 * only through its surface templates, whose touches the job derives again when a version changes them. A `baseVersion` other than the latest version saved (pending or applied) is refused (409
 * with both policies), checked under the evaluation's row lock: two saves from one version cannot both
 * pass. A policy that says exactly what the latest one does (classes and templates) makes no version (`unchanged`). A version
 * saved while another is pending supersedes it: only the newest is recomputed and applied.
 */
export async function setEffectPolicy(
  db: Db,
  evaluationId: string,
  { baseVersion, ...policy }: SetEffectPolicyBody,
  createdById: string | null,
): Promise<SetEffectPolicyAnswer> {
  return db.$transaction(
    async (tx) => {
      // The row is locked first and the policy read by a second statement (see currentPolicy in audit/lock.ts).
      const [locked] = z
        .array(z.object({ applied: z.number().int(), pending: z.number().int().nullable() }))
        .parse(
          await tx.$queryRaw`SELECT effect_policy_version AS applied, pending_policy_version AS pending FROM evaluations WHERE id = ${evaluationId}::uuid FOR UPDATE`,
        );
      if (!locked) throw notFound("evaluation");
      const latestVersion = locked.pending ?? locked.applied;
      const latest = effectPolicySchema.parse(
        onlyRowOf(
          z.object({ tools: z.unknown() }),
          await tx.$queryRaw`SELECT tools FROM evaluation_effect_policies WHERE evaluation_id = ${evaluationId}::uuid AND version = ${latestVersion}`,
        ),
      );
      if (baseVersion !== undefined && baseVersion !== latestVersion) {
        throw conflict(
          "edit_conflict",
          `baseVersion: the effect policy is at version ${latestVersion} now, not ${baseVersion}; nothing was changed. Compare both and save again from version ${latestVersion}.`,
          "baseVersion",
          {
            current: { version: latestVersion, policy: latest },
            yours: policy,
          } satisfies EffectPolicyConflict,
        );
      }
      const progress = async () =>
        onlyRowOf(
          z.object({ runsDone: z.number().int(), runsTotal: z.number().int() }),
          await tx.$queryRaw`SELECT runs_done AS "runsDone", runs_total AS "runsTotal" FROM evaluation_policy_recomputes
                              WHERE evaluation_id = ${evaluationId}::uuid AND version = ${latestVersion}`,
        );
      if (samePolicy(latest, policy))
        return {
          version: latestVersion,
          unchanged: true as const,
          appliedVersion: locked.applied,
          recompute: locked.pending === null ? null : await progress(),
        };
      const version = latestVersion + 1;
      await tx.evaluationEffectPolicy.create({ data: { evaluationId, version, tools: policy.tools, createdById } });
      await tx.$executeRaw`UPDATE evaluations SET pending_policy_version = ${version} WHERE id = ${evaluationId}::uuid`;
      // A version still pending is never applied now: the newest is recomputed instead.
      await tx.$executeRaw`UPDATE evaluation_policy_recomputes SET superseded_at = now()
                            WHERE evaluation_id = ${evaluationId}::uuid AND applied_at IS NULL AND superseded_at IS NULL`;
      // The resolutions' high-water mark, read while the row lock keeps this evaluation's resolutions
      // out: one appended after it has a larger id, and its run is computed again when the version is applied.
      const { runsTotal } = onlyRowOf(
        z.object({ runsTotal: z.number().int() }),
        await tx.$queryRaw`
          INSERT INTO evaluation_policy_recomputes (evaluation_id, version, runs_total, resolution_high_water)
          SELECT ${evaluationId}::uuid, ${version},
                 (SELECT coalesce(sum(n), 0)::int FROM evaluation_run_counts WHERE evaluation_id = ${evaluationId}::uuid AND finality <> 'unscored'),
                 (SELECT coalesce(max(id), 0) FROM evaluation_effect_resolutions)
          RETURNING runs_total AS "runsTotal"`,
      );
      await recomputePolicyJob.enqueue(tx, { evaluationId });
      return { version, appliedVersion: locked.applied, recompute: { runsDone: 0, runsTotal } };
    },
    { timeout: 30_000, maxWait: 30_000 },
  );
}

import type { Db } from "../db/prisma";
import { samePolicy } from "./policy";
import { conflict, notFound } from "../errors";
import { recordImportedTracesInTransaction, unlinkRunsWithOtherMarks } from "./record-traces";
import { recomputeFinality } from "./audit/finality-store";
import { currentPolicy } from "./audit/lock";
import type { EffectPolicyConflict, SetEffectPolicyBody } from "./schemas";

/**
 * Stores a new effect-policy version (the previous ones stay) and recomputes every run's finality
 * under it, in one transaction that waits for batches being ingested and holds new ones back.
 * Separation does not depend on the policy. Runs whose library trace marks its calls' writes
 * otherwise than the new policy move to the trace that marks them as it does (traces never change).
 * A `baseVersion` other than the current version is refused (409 with both policies), checked under
 * the evaluation's row lock: two saves from one version cannot both pass. A policy that classifies
 * exactly as the current one makes no version (`unchanged`): a save without an edit changes nothing.
 */
export async function setEffectPolicy(
  db: Db,
  evaluationId: string,
  { baseVersion, ...policy }: SetEffectPolicyBody,
  createdById: string | null,
): Promise<{ version: number; unchanged?: true }> {
  return db.$transaction(
    async (tx) => {
      const current = await currentPolicy(tx, evaluationId, "update");
      if (!current) throw notFound("evaluation");
      if (baseVersion !== undefined && baseVersion !== current.version) {
        throw conflict(
          "edit_conflict",
          `baseVersion: the effect policy is at version ${current.version} now, not ${baseVersion}; nothing was changed. Compare both and save again from version ${current.version}.`,
          "baseVersion",
          {
            current: { version: current.version, policy: current.policy },
            yours: policy,
          } satisfies EffectPolicyConflict,
        );
      }
      if (samePolicy(current.policy, policy)) return { version: current.version, unchanged: true as const };
      const version = current.version + 1;
      await tx.evaluationEffectPolicy.create({ data: { evaluationId, version, tools: policy.tools, createdById } });
      await tx.evaluation.update({ where: { id: evaluationId }, data: { effectPolicyVersion: version } });
      await recomputeFinality(tx, evaluationId, { version, policy }, "all");
      await unlinkRunsWithOtherMarks(tx, evaluationId, policy);
      await recordImportedTracesInTransaction(tx, evaluationId);
      return { version };
    },
    { timeout: 600_000, maxWait: 60_000 },
  );
}

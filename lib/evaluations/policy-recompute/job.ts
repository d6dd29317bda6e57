import { z } from "zod";
import type { SqlTx } from "../../db/sql-transaction";
import { addKeyedJob } from "../../jobs/queue";

/**
 * Recomputes an evaluation's runs under its pending effect-policy version and applies it
 * (recompute.ts); enqueued in the transaction that saves the version. Idempotent and resumable: each
 * step commits its progress, so a retried job goes on from the last chunk a dead one committed.
 */
export const RECOMPUTE_POLICY_JOB = "recompute_effect_policy";
/** Retried this often (a lost connection, a killed worker) before graphile-worker gives up; saving another version enqueues it again. */
export const RECOMPUTE_POLICY_MAX_ATTEMPTS = 25;
export const recomputePolicyPayloadSchema = z.strictObject({ evaluationId: z.uuid() });
export type RecomputePolicyPayload = z.infer<typeof recomputePolicyPayloadSchema>;
/** One queued job per evaluation: a version saved while one waits is merged into it (the job recomputes whichever version is pending). */
export const recomputePolicyJobKey = (evaluationId: string) => `effect-policy:${evaluationId}`;

/** Enqueues the evaluation's recompute inside the caller's transaction: it starts once the version is committed. */
export async function enqueuePolicyRecompute(tx: Pick<SqlTx, "$queryRaw">, evaluationId: string): Promise<void> {
  const payload: RecomputePolicyPayload = { evaluationId };
  await addKeyedJob(tx, RECOMPUTE_POLICY_JOB, payload, recomputePolicyJobKey(evaluationId), RECOMPUTE_POLICY_MAX_ATTEMPTS);
}

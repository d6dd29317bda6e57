import { z } from "zod";
import { defineJob } from "../../jobs/job-definition";

/** One queued job per evaluation: a version saved while one waits is merged into it (the job recomputes whichever version is pending). */
export const recomputePolicyJobKey = (evaluationId: string) => `effect-policy:${evaluationId}`;

/**
 * Recomputes an evaluation's runs under its pending effect-policy version and applies it
 * (recompute.ts); enqueued in the transaction that saves the version, so it starts once the version
 * is committed. Idempotent and resumable: each step commits its progress, so a retried job goes on
 * from the last chunk a dead one committed. Retried 25 times (a lost connection, a killed worker)
 * before graphile-worker gives up; saving another version enqueues it again.
 */
export const recomputePolicyJob = defineJob({
  name: "recompute_effect_policy",
  payload: z.strictObject({ evaluationId: z.uuid() }),
  maxAttempts: 25,
  key: (payload) => recomputePolicyJobKey(payload.evaluationId),
});

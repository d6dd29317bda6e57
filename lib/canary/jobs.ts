import { z } from "zod";
import type { SqlTx } from "../db/sql-transaction";
import { addKeyedJobs } from "../jobs/queue";
import { experimentJobKeyPrefix, UNIT_MAX_ATTEMPTS } from "../replay/run/jobs";
import { CANARY_CONDITIONS } from "./config";

/** One canary trial (lib/canary/): A plants, the condition's reset runs, B searches; stored once per (experiment, condition, trial). */
export const CANARY_TRIAL_JOB = "canary_trial";
export const canaryTrialPayloadSchema = z.strictObject({
  experimentId: z.uuid(),
  condition: z.enum(CANARY_CONDITIONS),
  trial: z.number().int().min(1),
});
export type CanaryTrialPayload = z.infer<typeof canaryTrialPayloadSchema>;
/** The key of the job running one canary trial: a second enqueue of the same trial is merged into it. */
export const canaryJobKey = (payload: CanaryTrialPayload) =>
  `${experimentJobKeyPrefix(payload.experimentId)}canary:${payload.condition}:${payload.trial}`;

/** Enqueues one job per canary trial, keyed by (experiment, condition, trial); inside the caller's transaction. */
export async function enqueueCanaryJobs(tx: Pick<SqlTx, "$queryRaw">, payloads: readonly CanaryTrialPayload[]): Promise<void> {
  await addKeyedJobs(
    tx,
    CANARY_TRIAL_JOB,
    payloads.map((payload) => ({ payload, key: canaryJobKey(payload) })),
    UNIT_MAX_ATTEMPTS,
  );
}

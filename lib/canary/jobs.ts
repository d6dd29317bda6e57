import { z } from "zod";
import { defineJob } from "../jobs/job-definition";
import { experimentJobKeyPrefix, UNIT_MAX_ATTEMPTS } from "../replay/run/jobs";
import { CANARY_CONDITIONS } from "./config";

export const canaryTrialPayloadSchema = z.strictObject({
  experimentId: z.uuid(),
  condition: z.enum(CANARY_CONDITIONS),
  trial: z.number().int().min(1),
});
export type CanaryTrialPayload = z.infer<typeof canaryTrialPayloadSchema>;
/** The key of the job running one canary trial: a second enqueue of the same trial is merged into it. */
export const canaryJobKey = (payload: CanaryTrialPayload) =>
  `${experimentJobKeyPrefix(payload.experimentId)}canary:${payload.condition}:${payload.trial}`;

/** One canary trial (lib/canary/): A plants, the condition's reset runs, B searches; stored once per (experiment, condition, trial). */
export const canaryTrialJob = defineJob({
  name: "canary_trial",
  payload: canaryTrialPayloadSchema,
  maxAttempts: UNIT_MAX_ATTEMPTS,
  key: canaryJobKey,
});

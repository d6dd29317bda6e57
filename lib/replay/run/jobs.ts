import { z } from "zod";
import { defineJob } from "../../jobs/job-definition";
import { FINALITY_POLICIES, SEPARATION_CONDITIONS } from "../rules/config";

/**
 * The replay's jobs, enqueued (in SQL, inside the experiment's transaction) and handled by the worker
 * through their definitions. One job is one finality trial or one separation pair, so progress is
 * visible and a retry redoes little.
 */

/** A unit is retried this often (crashes, lost connections) before graphile-worker gives up on it. */
export const UNIT_MAX_ATTEMPTS = 10;

/** The unit's trace in its experiment's `traces`; jobs queued before there could be several mean the one. */
const traceIndex = z.number().int().min(0).default(0);

export const replayUnitPayloadSchema = z.strictObject({
  experimentId: z.uuid(),
  unit: z.discriminatedUnion("test", [
    z.strictObject({
      test: z.literal("finality"),
      trace: traceIndex,
      condition: z.enum(FINALITY_POLICIES),
      scheduleId: z.number().int().min(1),
      delayMs: z.number().int().min(0),
      repetition: z.number().int().min(1),
    }),
    z.strictObject({
      test: z.literal("separation"),
      trace: traceIndex,
      condition: z.enum(SEPARATION_CONDITIONS),
      scheduleId: z.number().int().min(1),
      delayMs: z.number().int().min(0),
      repetition: z.number().int().min(1),
    }),
  ]),
});
export type ReplayUnitPayload = z.infer<typeof replayUnitPayloadSchema>;

/** The key prefix shared by every job of one experiment (canary trials too): how its jobs are found in graphile-worker's `jobs` view. */
export const experimentJobKeyPrefix = (experimentId: string) => `experiment:${experimentId}:`;
/** The key of the job replaying the `index`-th unit of the experiment's grid. */
export const unitJobKey = (experimentId: string, index: number) => `${experimentJobKeyPrefix(experimentId)}unit:${index}`;
/** The experiment's one finalize job: requested by every unit that may have been the last, deduplicated by this key. */
export const finalizeJobKey = (experimentId: string) => `${experimentJobKeyPrefix(experimentId)}finalize`;

/** One unit of an experiment's grid, keyed by its position in the grid (the units are enqueued together, in grid order). */
export const replayUnitJob = defineJob({
  name: "replay_unit",
  payload: replayUnitPayloadSchema,
  maxAttempts: UNIT_MAX_ATTEMPTS,
  key: (payload, position) => unitJobKey(payload.experimentId, position),
});

/** Closes an experiment whose runs are all stored; a second request while one is queued is merged into it by its key. */
export const finalizeExperimentJob = defineJob({
  name: "finalize_experiment",
  payload: z.strictObject({ experimentId: z.uuid() }),
  maxAttempts: 5,
  key: (payload) => finalizeJobKey(payload.experimentId),
});

import type { WorkerUtils } from "graphile-worker";
import { z } from "zod";
import type { SqlTx } from "../../db/sql-transaction";
import { addJobNow, addKeyedJobs } from "../../jobs/queue";
import { FINALITY_POLICIES, SEPARATION_CONDITIONS } from "../rules/config";

/**
 * The replay's jobs: a name and one zod payload schema each, used by the code that enqueues them
 * (in SQL, inside the experiment's transaction) and re-validated by the worker. One job is one
 * finality trial or one separation pair, so progress is visible and a retry redoes little.
 */
export const REPLAY_UNIT_JOB = "replay_unit";
export const FINALIZE_EXPERIMENT_JOB = "finalize_experiment";
/** A unit is retried this often (crashes, lost connections) before graphile-worker gives up on it. */
export const UNIT_MAX_ATTEMPTS = 10;
const FINALIZE_MAX_ATTEMPTS = 5;

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

export const finalizeExperimentPayloadSchema = z.strictObject({ experimentId: z.uuid() });
export type FinalizeExperimentPayload = z.infer<typeof finalizeExperimentPayloadSchema>;

/** The key prefix shared by every job of one experiment (canary trials too): how its jobs are found in graphile-worker's `jobs` view. */
export const experimentJobKeyPrefix = (experimentId: string) => `experiment:${experimentId}:`;
/** The key of the job replaying the `index`-th unit of the experiment's grid. */
export const unitJobKey = (experimentId: string, index: number) => `${experimentJobKeyPrefix(experimentId)}unit:${index}`;
/** The experiment's one finalize job: requested by every unit that may have been the last, deduplicated by this key. */
export const finalizeJobKey = (experimentId: string) => `${experimentJobKeyPrefix(experimentId)}finalize`;

/** Enqueues one job per unit, keyed by its position in the grid; inside the caller's transaction. */
export async function enqueueUnitJobs(tx: Pick<SqlTx, "$queryRaw">, payloads: readonly ReplayUnitPayload[]): Promise<void> {
  await addKeyedJobs(
    tx,
    REPLAY_UNIT_JOB,
    payloads.map((payload, index) => ({ payload, key: unitJobKey(payload.experimentId, index) })),
    UNIT_MAX_ATTEMPTS,
  );
}

/** Enqueues the experiment's finalize job; a second request while one is queued is merged into it by its key. */
export async function enqueueFinalizeJob(utils: WorkerUtils, experimentId: string): Promise<void> {
  const payload: FinalizeExperimentPayload = { experimentId };
  await addJobNow(utils, FINALIZE_EXPERIMENT_JOB, payload, finalizeJobKey(experimentId), FINALIZE_MAX_ATTEMPTS);
}

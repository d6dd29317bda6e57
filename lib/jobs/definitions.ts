import { z } from "zod";
import { CANARY_CONDITIONS } from "../canary/config";
import { FINALITY_POLICIES, SEPARATION_CONDITIONS } from "../replay/rules/config";

/**
 * The replay's jobs: a name and one zod payload schema each, used by the code that enqueues them
 * (in SQL, inside the experiment's transaction) and re-validated by the worker. One job is one
 * finality trial or one separation pair, so progress is visible and a retry redoes little.
 */
export const REPLAY_UNIT_JOB = "replay_unit";
export const FINALIZE_EXPERIMENT_JOB = "finalize_experiment";
/** A unit is retried this often (crashes, lost connections) before graphile-worker gives up on it. */
export const UNIT_MAX_ATTEMPTS = 10;

/** The unit's trace in its experiment's `traces`; jobs queued before there could be several mean the one. */
const traceIndex = z.number().int().min(0).default(0);

export const replayUnitPayloadSchema = z.strictObject({
  experimentId: z.uuid(),
  unit: z.discriminatedUnion("test", [
    z.strictObject({ test: z.literal("finality"), trace: traceIndex, condition: z.enum(FINALITY_POLICIES), scheduleId: z.number().int().min(1), delayMs: z.number().int().min(0), repetition: z.number().int().min(1) }),
    z.strictObject({ test: z.literal("separation"), trace: traceIndex, condition: z.enum(SEPARATION_CONDITIONS), scheduleId: z.number().int().min(1), delayMs: z.number().int().min(0), repetition: z.number().int().min(1) }),
  ]),
});
export type ReplayUnitPayload = z.infer<typeof replayUnitPayloadSchema>;

export const finalizeExperimentPayloadSchema = z.strictObject({ experimentId: z.uuid() });
export type FinalizeExperimentPayload = z.infer<typeof finalizeExperimentPayloadSchema>;

/** The key prefix shared by every job of one experiment: how its jobs are found in graphile-worker's `jobs` view. */
export const experimentJobKeyPrefix = (experimentId: string) => `experiment:${experimentId}:`;
/** The key of the job replaying the `index`-th unit of the experiment's grid. */
export const unitJobKey = (experimentId: string, index: number) => `${experimentJobKeyPrefix(experimentId)}unit:${index}`;
/** The experiment's one finalize job: requested by every unit that may have been the last, deduplicated by this key. */
export const finalizeJobKey = (experimentId: string) => `${experimentJobKeyPrefix(experimentId)}finalize`;

/** One canary trial (lib/canary/): A plants, the condition's reset runs, B searches; stored once per (experiment, condition, trial). */
export const CANARY_TRIAL_JOB = "canary_trial";
export const canaryTrialPayloadSchema = z.strictObject({
  experimentId: z.uuid(),
  condition: z.enum(CANARY_CONDITIONS),
  trial: z.number().int().min(1),
});
export type CanaryTrialPayload = z.infer<typeof canaryTrialPayloadSchema>;
/** The key of the job running one canary trial: a second enqueue of the same trial is merged into it. */
export const canaryJobKey = (payload: CanaryTrialPayload) => `${experimentJobKeyPrefix(payload.experimentId)}canary:${payload.condition}:${payload.trial}`;

/**
 * Records the call sequences of an evaluation's runs in the trace library (lib/evaluations/record-traces.ts),
 * after runs were ingested through the API; enqueued in the ingest's transaction. Idempotent: it
 * links whatever runs of the evaluation are still untraced, so one job covers every batch before it.
 */
export const RECORD_TRACES_JOB = "record_traces";
/** A trace job is retried this often (a lost connection, a deadlock) before graphile-worker gives up; the next ingest enqueues another. */
export const RECORD_TRACES_MAX_ATTEMPTS = 5;
export const recordTracesPayloadSchema = z.strictObject({ evaluationId: z.uuid() });
export type RecordTracesPayload = z.infer<typeof recordTracesPayloadSchema>;
/** The evaluation's trace job: batches ingested while one waits are merged into it; one running is followed by a new one. */
export const recordTracesJobKey = (evaluationId: string) => `record-traces:${evaluationId}`;

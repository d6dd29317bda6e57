import type { Db } from "../db/prisma";
import type { SqlTx } from "../db/sql-transaction";
import type { Prisma } from "../generated/prisma/client";
import type { WorkerUtils } from "graphile-worker";
import {
  CANARY_TRIAL_JOB,
  FINALIZE_EXPERIMENT_JOB,
  RECORD_TRACES_JOB,
  RECORD_TRACES_MAX_ATTEMPTS,
  REPLAY_UNIT_JOB,
  UNIT_MAX_ATTEMPTS,
  canaryJobKey,
  experimentJobKeyPrefix,
  finalizeJobKey,
  recordTracesJobKey,
  unitJobKey,
  type CanaryTrialPayload,
  type FinalizeExperimentPayload,
  type RecordTracesPayload,
  type ReplayUnitPayload,
} from "./definitions";

// The job queue through graphile-worker's public interface only: its `jobs` view, job keys and its
// SQL functions (its `_private_*` tables may change with any release). Every job of an experiment
// carries a key starting with `experimentJobKeyPrefix(id)` (definitions.ts), which is how a job is
// found again: the view has no payload column.

type Sql = Pick<Db, "$queryRaw">;

/** Enqueues one job per unit, keyed by its position in the grid; inside the caller's transaction. */
export async function enqueueUnitJobs(tx: Prisma.TransactionClient, payloads: ReplayUnitPayload[]): Promise<void> {
  await addKeyedJobs(tx, REPLAY_UNIT_JOB, payloads.map((payload, index) => ({ payload, key: unitJobKey(payload.experimentId, index) })));
}

/** graphile-worker's add_jobs, in order, each with its key and the unit's attempts. */
async function addKeyedJobs(tx: Prisma.TransactionClient, task: string, specs: Array<{ payload: unknown; key: string }>): Promise<void> {
  await tx.$queryRaw`
    SELECT count(*) FROM graphile_worker.add_jobs(ARRAY(
      SELECT ROW(${task}, spec->'payload', NULL, NULL, ${UNIT_MAX_ATTEMPTS}::int, spec->>'key', NULL, NULL)::graphile_worker.job_spec
        FROM jsonb_array_elements(${JSON.stringify(specs)}::jsonb) WITH ORDINALITY AS s(spec, n)
       ORDER BY n))`;
}

/** Enqueues one job per canary trial, keyed by (experiment, condition, trial); inside the caller's transaction. */
export async function enqueueCanaryJobs(tx: Prisma.TransactionClient, payloads: CanaryTrialPayload[]): Promise<void> {
  await addKeyedJobs(tx, CANARY_TRIAL_JOB, payloads.map((payload) => ({ payload, key: canaryJobKey(payload) })));
}

/** Permanently fails the experiment's unit jobs that no worker holds, so none starts; returns how many. */
export async function failQueuedUnitJobs(db: Sql, experimentId: string, reason: string): Promise<number> {
  const [{ failed }] = await db.$queryRaw<[{ failed: number }]>`
    SELECT count(*)::int AS failed FROM graphile_worker.permanently_fail_jobs(ARRAY(
      SELECT id FROM graphile_worker.jobs
       WHERE starts_with(key, ${experimentJobKeyPrefix(experimentId)}) AND task_identifier IN (${REPLAY_UNIT_JOB}, ${CANARY_TRIAL_JOB}) AND locked_at IS NULL
    ), ${reason})`;
  return failed;
}

/** Jobs of the experiment a worker holds right now. */
export async function lockedJobCount(db: Sql, experimentId: string): Promise<number> {
  const [{ locked }] = await db.$queryRaw<[{ locked: number }]>`
    SELECT count(*)::int AS locked FROM graphile_worker.jobs
     WHERE starts_with(key, ${experimentJobKeyPrefix(experimentId)}) AND locked_at IS NOT NULL`;
  return locked;
}

/** Unit jobs of the experiment in the queue (locked or not): one per replay unit, or per canary trial, until it has run. */
export async function queuedUnitJobCount(db: Sql, experimentId: string): Promise<number> {
  const [{ queued }] = await db.$queryRaw<[{ queued: number }]>`
    SELECT count(*)::int AS queued FROM graphile_worker.jobs
     WHERE starts_with(key, ${experimentJobKeyPrefix(experimentId)}) AND task_identifier IN (${REPLAY_UNIT_JOB}, ${CANARY_TRIAL_JOB})`;
  return queued;
}

/** Jobs that will still run (attempts left), among those keyed `keys`, or all of them. */
export async function runnableJobCount(db: Sql, keys?: string[]): Promise<number> {
  const [{ runnable }] = keys
    ? await db.$queryRaw<[{ runnable: number }]>`SELECT count(*)::int AS runnable FROM graphile_worker.jobs WHERE key = ANY(${keys}::text[]) AND attempts < max_attempts`
    : await db.$queryRaw<[{ runnable: number }]>`SELECT count(*)::int AS runnable FROM graphile_worker.jobs WHERE attempts < max_attempts`;
  return runnable;
}

/** Enqueues the experiment's finalize job; a second request while one is queued is merged into it by its key. */
export async function enqueueFinalizeJob(utils: WorkerUtils, experimentId: string): Promise<void> {
  const payload: FinalizeExperimentPayload = { experimentId };
  await utils.addJob(FINALIZE_EXPERIMENT_JOB, payload, { jobKey: finalizeJobKey(experimentId), maxAttempts: 5 });
}

/** Enqueues the evaluation's record_traces job inside the caller's transaction (it runs once the runs it is for are committed); deduplicated by its key. */
export async function enqueueRecordTracesJob(tx: Pick<SqlTx, "$queryRaw">, evaluationId: string): Promise<void> {
  const payload: RecordTracesPayload = { evaluationId };
  await tx.$queryRaw`
    SELECT id FROM graphile_worker.add_job(${RECORD_TRACES_JOB}, ${JSON.stringify(payload)}::json,
                                           max_attempts => ${RECORD_TRACES_MAX_ATTEMPTS}::int, job_key => ${recordTracesJobKey(evaluationId)})`;
}

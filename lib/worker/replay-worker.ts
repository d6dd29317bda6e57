import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import pLimit from "p-limit";
import { hostname } from "node:os";
import { Logger, makeWorkerUtils, run, type Runner, type TaskList, type WorkerEvents } from "graphile-worker";
import { createPrisma } from "../db/prisma";
import { DelayedWriteClient } from "../delayed-write/client";
import {
  FINALIZE_EXPERIMENT_JOB,
  REPLAY_UNIT_JOB,
  finalizeExperimentPayloadSchema,
  finalizeJobKey,
  replayUnitPayloadSchema,
} from "../jobs/definitions";
import { UnitResultWriter } from "../replay/batch-writer";
import { replayConfigSchema, type ReplayConfig } from "../replay/config";
import type { ReplayContext } from "../replay/context";
import { expectedRunCount } from "../replay/grid";
import { finalizeExperiment, markExperimentStarted, recordService, unitStored } from "../replay/persist";
import { runUnitWithRule } from "../replay/run-grid";
import { warmUp } from "../replay/warmup";

export interface ReplayWorkerOptions {
  databaseUrl: string;
  serviceUrl: string;
  concurrency: number;
  log?: (line: string) => void;
  /** A worker whose heartbeat is older than this is presumed dead and its jobs are unlocked. */
  staleAfterMs?: number;
}

export interface ReplayWorker {
  poolId: string;
  /** False once shutdown has begun. */
  ready(): boolean;
  /** Stops taking jobs, finishes the ones in flight (or hands them back after timeoutMs), closes connections. */
  stop(timeoutMs?: number): Promise<void>;
}

const HEARTBEAT_MS = 1_000;

/**
 * A replay worker: claims replay jobs from the PostgreSQL queue (graphile-worker), runs each unit
 * against the delayed-write service, and stores its runs idempotently. Any number may run against
 * one database. Each keeps a heartbeat; a live worker unlocks the jobs of one whose heartbeat stopped.
 */
export async function startReplayWorker(options: ReplayWorkerOptions): Promise<ReplayWorker> {
  const log = options.log ?? (() => {});
  const staleAfterMs = options.staleAfterMs ?? 5_000;
  const poolId = `pool-${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const db = createPrisma(options.databaseUrl, 8);
  const client = new DelayedWriteClient(options.serviceUrl);
  const { timeOrigin } = await client.clock();
  await warmUp(client, `bl/${poolId}-warmup`, options.concurrency);
  const offset = performance.timeOrigin - timeOrigin;
  const serviceNow = () => performance.now() + offset;
  const writer = new UnitResultWriter(db, { maxUnits: 64, maxWaitMs: 50 });
  // `concurrency` units replay at once; as many more jobs may be waiting for their batch to be
  // stored, so that storage never holds a replay slot.
  const replaying = pLimit(options.concurrency);
  const jobConcurrency = options.concurrency * 2;
  let shuttingDown = false;
  let unitsRun = 0;

  // Per-experiment facts cached so that a unit costs few queries: database work in this process
  // competes with the replay's own requests for CPU. The state is re-read at most once a second
  // (a cancellation is seen within that), and the experiment is marked started once per worker.
  const experiments = new Map<string, { config: ReplayConfig; state: string; readAt: number }>();
  const experiment = async (experimentId: string) => {
    const cached = experiments.get(experimentId);
    if (cached && performance.now() - cached.readAt < 1_000) return cached;
    const row = await db.experiment.findUnique({ where: { id: experimentId }, select: { config: true, state: true } });
    if (!row) return null;
    const fresh = { config: cached?.config ?? replayConfigSchema.parse(row.config), state: row.state, readAt: performance.now() };
    if (!cached) {
      await recordService(db, experimentId, { url: options.serviceUrl, timeOrigin });
      await markExperimentStarted(db, experimentId);
    }
    experiments.set(experimentId, fresh);
    return fresh;
  };

  const context = (experimentId: string, config: ReplayConfig): ReplayContext => ({
    client,
    serviceUrl: options.serviceUrl,
    namespacePrefix: `bl/${experimentId}`,
    trace: config.trace,
    scoringMarginMs: config.scoringMarginMs,
    serviceTimeOrigin: timeOrigin,
    serviceNow,
  });

  // Once every run of an experiment is stored, one finalize job is enqueued (deduplicated by key).
  // Checks are coalesced per experiment; one requested while another runs makes it run again after,
  // so the last unit to commit is always counted.
  const completion = new Map<string, { running: Promise<void>; again: boolean }>();
  const checkCompletion = (experimentId: string, config: ReplayConfig): Promise<void> => {
    const current = completion.get(experimentId);
    if (current) {
      current.again = true;
      return current.running;
    }
    const entry = { running: Promise.resolve(), again: true };
    entry.running = (async () => {
      try {
        while (entry.again) {
          entry.again = false;
          if ((await db.run.count({ where: { experimentId } })) >= expectedRunCount(config)) {
            await utils.addJob(FINALIZE_EXPERIMENT_JOB, { experimentId }, { jobKey: finalizeJobKey(experimentId), maxAttempts: 5 });
          }
        }
      } finally {
        completion.delete(experimentId);
      }
    })();
    completion.set(experimentId, entry);
    return entry.running;
  };

  const taskList: TaskList = {
    [REPLAY_UNIT_JOB]: async (payload, helpers) => {
      const parsed = replayUnitPayloadSchema.safeParse(payload);
      if (!parsed.success) {
        // An invalid payload will never become valid: log it and complete the job rather than retry.
        log(`job ${helpers.job.id}: invalid ${REPLAY_UNIT_JOB} payload, not retried: ${parsed.error.issues[0]?.message}`);
        return;
      }
      const { experimentId, unit } = parsed.data;
      const found = await experiment(experimentId);
      if (!found || found.state === "cancelled") return;
      // Only a retried job can find its unit already stored (its earlier attempt committed, then died).
      const retried = helpers.job.attempts > 1;
      if (!retried || !(await unitStored(db, experimentId, unit))) {
        const retries = found.config.environmentFailureRetries;
        // A retried job starts in namespaces its earlier attempts never used.
        const result = await replaying(() => runUnitWithRule(context(experimentId, found.config), unit, retries, (helpers.job.attempts - 1) * (retries + 1)));
        await writer.write({ experimentId, result });
        unitsRun++;
      }
      await checkCompletion(experimentId, found.config);
    },
    [FINALIZE_EXPERIMENT_JOB]: async (payload, helpers) => {
      const parsed = finalizeExperimentPayloadSchema.safeParse(payload);
      if (!parsed.success) {
        log(`job ${helpers.job.id}: invalid ${FINALIZE_EXPERIMENT_JOB} payload, not retried`);
        return;
      }
      await finalizeExperiment(db, parsed.data.experimentId);
      experiments.delete(parsed.data.experimentId);
    },
  };

  const utils = await makeWorkerUtils({ connectionString: options.databaseUrl, logger: quietLogger });
  // graphile-worker 0.17 locks jobs in the name of the worker pool, so the pool ids are what a
  // heartbeat must cover and what forceUnlockWorkers must be given.
  const lockOwners = new Set<string>();
  const events: WorkerEvents = new EventEmitter();
  events.on("pool:create", ({ workerPool }) => lockOwners.add(workerPool.id));
  events.on("pool:release", ({ workerPool }) => lockOwners.delete(workerPool.id));
  const runner: Runner = await run({
    connectionString: options.databaseUrl,
    concurrency: jobConcurrency,
    noHandleSignals: true,
    pollInterval: 1_000,
    events,
    // Fetch and complete jobs in batches: fewer queries per unit on the replay's timing path.
    preset: { worker: { localQueue: { size: jobConcurrency }, completeJobBatchDelay: 20 } },
    logger: new Logger(() => (level, message) => {
      if (level === "error") log(`graphile-worker: ${message}`);
    }),
    taskList,
  });

  const heartbeat = async () => {
    const ids = [...lockOwners];
    if (ids.length) {
      await db.$executeRaw`
        INSERT INTO replay_workers (worker_id, pool_id, hostname, pid, heartbeat_at)
        SELECT id, ${poolId}, ${hostname()}, ${process.pid}::int, now() FROM unnest(${ids}::text[]) AS id
        ON CONFLICT (worker_id) DO UPDATE SET heartbeat_at = now()`;
    }
    // Workers that stopped beating crashed or were killed: hand their locked jobs back to the queue.
    // Never this pool's own: after a database outage its row is old too, but it is alive.
    const stale = await db.$queryRaw<Array<{ worker_id: string }>>`
      DELETE FROM replay_workers
       WHERE heartbeat_at < now() - make_interval(secs => ${staleAfterMs / 1000}::float8) AND NOT (worker_id = ANY(${ids}::text[]))
      RETURNING worker_id`;
    if (stale.length) {
      await utils.forceUnlockWorkers(stale.map((s) => s.worker_id));
      log(`unlocked the jobs of ${stale.length} worker(s) whose heartbeat stopped`);
    }
  };
  const beating = setInterval(() => {
    heartbeat().catch((error: unknown) => log(`heartbeat failed: ${(error as Error).message}`));
  }, HEARTBEAT_MS);
  await heartbeat();
  log(`replay worker ${poolId} ready: concurrency ${options.concurrency}, service ${options.serviceUrl}`);

  return {
    poolId,
    ready: () => !shuttingDown,
    async stop(timeoutMs = 30_000) {
      if (shuttingDown) return;
      shuttingDown = true;
      clearInterval(beating);
      const stopped = runner.stop().catch(() => {});
      const timedOut = await Promise.race([stopped.then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), timeoutMs).unref())]);
      if (timedOut) {
        // Jobs still running are handed back: their units are redone elsewhere, idempotently.
        await utils.forceUnlockWorkers([...lockOwners]).catch(() => {});
        await runner.kill().catch(() => {});
      }
      await writer.flush();
      await db.$executeRaw`DELETE FROM replay_workers WHERE pool_id = ${poolId}`.catch(() => 0);
      await utils.release();
      await client.close();
      await db.$disconnect();
      log(`replay worker ${poolId} stopped after running ${unitsRun} units`);
    },
  };
}

const quietLogger = new Logger(() => () => {});

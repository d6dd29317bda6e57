import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import pLimit from "p-limit";
import { hostname } from "node:os";
import { Logger, makeWorkerUtils, run, type Runner, type TaskList, type WorkerEvents } from "graphile-worker";
import { createPrisma, type Db } from "../db/prisma";
import { DelayedWriteClient } from "../delayed-write/client";
import {
  FINALIZE_EXPERIMENT_JOB,
  REPLAY_UNIT_JOB,
  finalizeExperimentPayloadSchema,
  replayUnitPayloadSchema,
} from "../jobs/definitions";
import { beat, forgetPool, unlockDeadPools } from "../jobs/heartbeat";
import { enqueueFinalizeJob } from "../jobs/queue";
import { UnitResultWriter } from "../replay/batch-writer";
import { replayConfigSchema, type ReplayConfig } from "../replay/config";
import type { ReplayContext } from "../replay/context";
import { expectedRunCount } from "../replay/grid";
import { finalizeExperiment, markExperimentStarted, recordService, unitStored } from "../replay/persist";
import { attemptsPerRun, runUnitWithRule } from "../replay/run-grid";
import { warmUp } from "../replay/warmup";
import { AdmissionControl } from "./admission";

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
/** A first wave of units is spread over this long (runGrid's RAMP_MS). */
const RAMP_MS = 200;
/** How long a unit waits for an unreachable delayed-write service before it runs anyway. */
const SERVICE_WAIT_MS = 5_000;
/** How long the retry of an attempt that found the service unreachable waits for it (a supervised restart takes seconds). */
const SERVICE_RETRY_WAIT_MS = 30_000;
/** How often an idle worker asks the service for its clock, to notice a restart before a unit runs on the old clock. */
const SERVICE_CHECK_MS = 500;

/**
 * A replay worker: claims replay jobs from the PostgreSQL queue (graphile-worker), runs each unit
 * against the delayed-write service, and stores its runs idempotently. Any number may run against
 * one database. Each keeps a heartbeat; a live worker unlocks the jobs of one whose heartbeat stopped.
 */
export async function startReplayWorker(options: ReplayWorkerOptions): Promise<ReplayWorker> {
  const log = options.log ?? (() => {});
  const staleAfterMs = options.staleAfterMs ?? 5_000;
  const poolId = `pool-${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  // Prisma 6.19 keeps a connection checked out for good when its transaction loses the server (the
  // failed ROLLBACK skips the release): every database outage during a batch store cost the pool a
  // connection until none was left. After an outage the worker moves to a fresh client (renewDb).
  let prisma = createPrisma(options.databaseUrl, 8);
  const db = new Proxy({} as Db, {
    get: (_, key) => {
      const value: unknown = Reflect.get(prisma, key);
      return typeof value === "function" ? value.bind(prisma) : value;
    },
  });
  const renewDb = () => {
    const old = prisma;
    prisma = createPrisma(options.databaseUrl, 8);
    void Promise.race([old.$disconnect(), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]).catch(() => {});
  };
  const client = new DelayedWriteClient(options.serviceUrl);
  let { timeOrigin } = await client.clock();
  await warmUp(client, `bl/${poolId}-warmup`, options.concurrency);
  let offset = performance.timeOrigin - timeOrigin;
  const serviceNow = () => performance.now() + offset;
  // When the service becomes unreachable, a new unit waits (up to SERVICE_WAIT_MS, then it runs and
  // fails as an environment failure) until it answers again. If it answers with another clock
  // origin, it restarted: cold, with a clock that starts from zero. Its clock is then re-read and
  // it is warmed up first; otherwise the units after a restart waited on the old clock (skipping
  // their waits) and met a cold service whose lag flipped 25 ms labels.
  let resyncing: Promise<void> | null = null;
  const resync = () =>
    (resyncing ??= (async () => {
      for (let round = 1; ; round++) {
        try {
          const clock = await client.clock();
          if (clock.timeOrigin !== timeOrigin) {
            await warmUp(client, `bl/${poolId}-warmup-${round}-${Math.round(clock.timeOrigin)}`, options.concurrency);
            timeOrigin = clock.timeOrigin;
            offset = performance.timeOrigin - timeOrigin;
            log(`the delayed-write service restarted: clock re-read and service warmed up`);
          }
          return;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
    })().finally(() => {
      resyncing = null;
    }));
  const writer = new UnitResultWriter(db, { maxUnits: 64, maxWaitMs: 50 });
  // `concurrency` units replay at once; as many more jobs may be waiting for their batch to be
  // stored, so that storage never holds a replay slot.
  const replaying = pLimit(options.concurrency);
  const admission = new AdmissionControl(options.concurrency);
  const jobConcurrency = options.concurrency * 2;
  // The first wave is spread over RAMP_MS, as runGrid's is (docs/replay.md): jobs arrive at an idle
  // worker as a fetched batch, and units all started in one tick made their writes come due at once
  // and the replay's own lag show in the labels at 25 ms.
  let inFlight = 0;
  let ramp = { startedAt: 0, started: 0 };
  const replayUnit = <T>(fn: () => Promise<T>): Promise<T> =>
    replaying(async () => {
      if (resyncing) await Promise.race([resyncing, new Promise((resolve) => setTimeout(resolve, SERVICE_WAIT_MS))]);
      const now = performance.now();
      if (inFlight === 0) ramp = { startedAt: now, started: 0 };
      inFlight++;
      try {
        if (ramp.started < options.concurrency) {
          const at = ramp.startedAt + (ramp.started++ * RAMP_MS) / options.concurrency;
          if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
        }
        return await fn();
      } finally {
        inFlight--;
      }
    });
  // A service restarted while no unit ran (under `npm start` it comes back on the same URL) has a new
  // clock; no request failed, so without this check the next units would wait on the old one. While
  // units run, a restart makes their requests fail, which triggers the same re-read: the check then
  // stays off the replay's path.
  const watchingService = setInterval(() => {
    if (resyncing || inFlight > 0) return;
    client.clock().then(
      (clock) => {
        if (clock.timeOrigin !== timeOrigin) void resync();
      },
      () => void resync(),
    );
  }, SERVICE_CHECK_MS);
  let shuttingDown = false;
  let handedBack = false;
  let unitsRun = 0;

  // Per-experiment facts cached so that a unit costs few queries: database work in this process
  // competes with the replay's own requests for CPU. The state is re-read at most once a second
  // (a cancellation is seen within that), and the experiment is marked started once per worker.
  // Jobs that find the cache stale share one read: the first jobs of an experiment arrive together
  // (a whole fetched batch), and one query each, plus an UPDATE each of the same experiment row,
  // delayed and then bunched the first wave of units, which made the replay's own lag show in the labels.
  const experiments = new Map<string, { config: ReplayConfig; state: string; readAt: number }>();
  const reading = new Map<string, Promise<{ config: ReplayConfig; state: string; readAt: number } | null>>();
  const experiment = (experimentId: string) => {
    const cached = experiments.get(experimentId);
    if (cached && performance.now() - cached.readAt < 1_000) return Promise.resolve(cached);
    const pending = reading.get(experimentId);
    if (pending) return pending;
    const read = (async () => {
      const row = await db.experiment.findUnique({ where: { id: experimentId }, select: { config: true, state: true } });
      if (!row) return null;
      const fresh = { config: cached?.config ?? replayConfigSchema.parse(row.config), state: row.state, readAt: performance.now() };
      if (!cached) {
        await recordService(db, experimentId, { url: options.serviceUrl, timeOrigin });
        await markExperimentStarted(db, experimentId);
      }
      experiments.set(experimentId, fresh);
      return fresh;
    })().finally(() => reading.delete(experimentId));
    reading.set(experimentId, read);
    return read;
  };

  const context = (experimentId: string, config: ReplayConfig): ReplayContext => ({
    client,
    serviceUrl: options.serviceUrl,
    namespacePrefix: `bl/${experimentId}`,
    trace: config.trace,
    scoringMarginMs: config.scoringMarginMs,
    serviceTimeOrigin: timeOrigin,
    serviceNow,
    onHarnessLate: () => {
      replaying.concurrency = admission.recordLate();
    },
    beforeUnreachableRetry: () => Promise.race([resync(), new Promise<void>((resolve) => setTimeout(resolve, SERVICE_RETRY_WAIT_MS).unref())]),
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
            await enqueueFinalizeJob(utils, experimentId);
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
        // A retried job starts in namespaces its earlier attempts never used.
        const firstAttempt = (helpers.job.attempts - 1) * attemptsPerRun(found.config);
        const result = await replayUnit(() => runUnitWithRule(context(experimentId, found.config), unit, found.config, firstAttempt));
        // A unit still replaying when its job was handed back at shutdown is not stored: its job is
        // redone by another worker, and closing this worker's client would otherwise have been
        // recorded as the unit's environment failure.
        if (handedBack) throw new Error("handed back at shutdown; the unit is redone elsewhere");
        if (result.runs[0]?.evidence.serviceFailures.some((failure) => failure.detail.startsWith("unreachable"))) void resync();
        replaying.concurrency = admission.recordOnTime();
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
  const startRunner = async (): Promise<Runner> => {
    const owners = new Set<string>();
    let ended = false;
    // graphile-worker shuts its pool down for good when it cannot record a job's outcome (the
    // database went away), and that shutdown can itself fail and never settle. The worker then
    // starts a new pool; the old one no longer beats, so its jobs are unlocked once its heartbeat is
    // stale (here or by any other worker) and redone in fresh namespaces, idempotently.
    const poolEnded = (why: string) => {
      // On stop() the pool's ids stay until it is released: a stop that times out unlocks its jobs.
      if (ended || shuttingDown) return;
      ended = true;
      for (const id of owners) lockOwners.delete(id);
      log(`graphile-worker pool ended (${why}); starting a new one`);
      renewDb();
      restarting = restartRunner();
    };
    const events: WorkerEvents = new EventEmitter();
    events.on("pool:create", ({ workerPool }) => {
      owners.add(workerPool.id);
      lockOwners.add(workerPool.id);
    });
    events.on("pool:release", ({ workerPool }) => {
      owners.delete(workerPool.id);
      lockOwners.delete(workerPool.id);
    });
    events.on("pool:gracefulShutdown", ({ message }) => poolEnded(message));
    const started = await run({
      connectionString: options.databaseUrl,
      concurrency: jobConcurrency,
      noHandleSignals: true,
      pollInterval: 1_000,
      events,
      // Fetch and complete jobs in batches: fewer queries per unit on the replay's timing path.
      // Failures are recorded in batches too: graphile-worker handles a failed batch (it shuts the
      // pool down, see above), while an unbatched failJob that loses its connection is an unhandled
      // rejection, which ended the process when PostgreSQL restarted.
      preset: { worker: { localQueue: { size: jobConcurrency }, completeJobBatchDelay: 20, failJobBatchDelay: 20 } },
      logger: new Logger(() => (level, message) => {
        if (level === "error") log(`graphile-worker: ${message}`);
      }),
      taskList,
    });
    void started.promise.then(
      () => poolEnded("stopped"),
      (error: unknown) => poolEnded((error as Error).message),
    );
    return started;
  };
  const restartRunner = async () => {
    for (let attempt = 1; !shuttingDown; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(attempt, 5) * 1_000));
      if (shuttingDown) return;
      try {
        runner = await startRunner();
        log(`graphile-worker pool restarted (attempt ${attempt})`);
        return;
      } catch (error) {
        log(`graphile-worker pool restart failed (attempt ${attempt}): ${(error as Error).message}`);
      }
    }
  };
  let restarting: Promise<void> = Promise.resolve();
  let runner: Runner | null = null;
  // graphile-worker 0.17 leaves a promise unhandled when the database goes away while a pool shuts
  // down (returning its local queue of fetched jobs), and Node would end the process for it. Those
  // jobs stay locked by a pool that no longer beats, so they are unlocked and redone like a dead
  // worker's: such a rejection is logged, not fatal. Any other unhandled rejection still is.
  const onUnhandledRejection = (reason: unknown) => {
    if (!(reason instanceof Error && reason.stack?.includes("graphile-worker"))) throw reason;
    log(`graphile-worker (unhandled, the pool's jobs are redone): ${reason.message}`);
  };
  process.on("unhandledRejection", onUnhandledRejection);
  runner = await startRunner();

  const heartbeat = async () => {
    const ids = [...lockOwners];
    await beat(db, poolId, ids);
    const unlocked = await unlockDeadPools(db, utils, ids, staleAfterMs);
    if (unlocked) log(`unlocked the jobs of ${unlocked} worker(s) whose heartbeat stopped`);
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
      clearInterval(watchingService);
      await restarting;
      const current = runner;
      const stopped = current ? current.stop().catch(() => {}) : Promise.resolve();
      const timedOut = await Promise.race([stopped.then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), timeoutMs).unref())]);
      if (timedOut) {
        // Jobs still running are handed back: their units are redone elsewhere, idempotently.
        handedBack = true;
        await utils.forceUnlockWorkers([...lockOwners]).catch(() => {});
        await current?.kill().catch(() => {});
      }
      await writer.flush();
      await forgetPool(db, poolId).catch(() => {});
      await utils.release();
      process.off("unhandledRejection", onUnhandledRejection);
      await client.close();
      // Prisma 6.19 never gives back a connection whose transaction lost its server (the failed
      // ROLLBACK skips the release), and ending its pool then waits for it forever: bounded here.
      await Promise.race([db.$disconnect(), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
      log(`replay worker ${poolId} stopped after running ${unitsRun} units`);
    },
  };
}

const quietLogger = new Logger(() => () => {});

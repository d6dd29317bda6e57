import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { Logger, makeWorkerUtils } from "graphile-worker";
import { startHeartbeat } from "../jobs/heartbeat";
import { UnitResultWriter } from "../replay/store/batch-writer";
import { sweepInterruptedExperiments } from "../replay/run/in-process-runner";
import { CompletionCheck } from "./completion-check";
import { ExperimentCache } from "./experiment-cache";
import { JobPool } from "./job-pool";
import { RenewableDb } from "./renewable-db";
import { ReplaySlots } from "./replay-slots";
import { ServiceClock } from "./service-clock";
import { stopWorker } from "./shutdown";
import { replayTaskList } from "./tasks";

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

/**
 * A replay worker: claims replay jobs from the PostgreSQL queue (graphile-worker), runs each unit
 * against the delayed-write service, and stores its runs idempotently. Any number may run against
 * one database. Each keeps a heartbeat; a live worker unlocks the jobs of one whose heartbeat stopped.
 * The parts, one job each: the Prisma client renewal (renewable-db.ts), the service's clock
 * (service-clock.ts), the replay slots and admission (replay-slots.ts), the experiment cache, the
 * completion check, the task handlers (tasks.ts), graphile-worker's pool and its restarts
 * (job-pool.ts), the heartbeat (lib/jobs/heartbeat.ts) and shutdown (shutdown.ts).
 */
export async function startReplayWorker(options: ReplayWorkerOptions): Promise<ReplayWorker> {
  const log = options.log ?? (() => {});
  const poolId = `pool-${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const database = new RenewableDb(options.databaseUrl);
  const db = database.db;
  const interrupted = await sweepInterruptedExperiments(db);
  if (interrupted.length) log(`marked ${interrupted.length} experiment(s) interrupted: their in-process replay is gone`);
  const clock = await ServiceClock.connect(options.serviceUrl, { poolId, concurrency: options.concurrency, log });
  const writer = new UnitResultWriter(db, { maxUnits: 64, maxWaitMs: 50 });
  // `concurrency` units replay at once; as many more jobs may be waiting for their batch to be
  // stored, so that storage never holds a replay slot.
  const slots = new ReplaySlots(options.concurrency, () => clock.beforeUnit());
  clock.watchWhileIdle(() => slots.idle());
  let shuttingDown = false;
  let handedBack = false;
  let unitsRun = 0;

  const utils = await makeWorkerUtils({ connectionString: options.databaseUrl, logger: quietLogger });
  const pool = new JobPool({
    databaseUrl: options.databaseUrl,
    concurrency: options.concurrency * 2,
    onPoolLost: () => database.renew(),
    log,
    taskList: replayTaskList({
      db,
      serviceUrl: options.serviceUrl,
      clock,
      slots,
      experiments: new ExperimentCache(db, () => ({ url: options.serviceUrl, timeOrigin: clock.origin })),
      writer,
      completion: new CompletionCheck(db, utils),
      handedBack: () => handedBack,
      unitStored: () => unitsRun++,
      log,
    }),
  });
  await pool.start();
  const heartbeat = await startHeartbeat(db, utils, {
    poolId,
    lockOwners: () => [...pool.lockOwners],
    staleAfterMs: options.staleAfterMs ?? 5_000,
    log,
  });
  log(`replay worker ${poolId} ready: concurrency ${options.concurrency}, service ${options.serviceUrl}`);

  return {
    poolId,
    ready: () => !shuttingDown,
    async stop(timeoutMs = 30_000) {
      if (shuttingDown) return;
      shuttingDown = true;
      await stopWorker({ poolId, heartbeat, clock, pool, writer, utils, database, db, handingBack: () => (handedBack = true) }, timeoutMs);
      log(`replay worker ${poolId} stopped after running ${unitsRun} units`);
    },
  };
}

const quietLogger = new Logger(() => () => {});

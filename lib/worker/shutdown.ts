import type { WorkerUtils } from "graphile-worker";
import type { Db } from "../db/prisma";
import { forgetPool } from "../jobs/heartbeat";
import type { UnitResultWriter } from "../replay/store/batch-writer";
import type { JobPool } from "./job-pool";
import type { RenewableDb } from "./renewable-db";
import type { ServiceClock } from "./service-clock";

export interface RunningWorker {
  poolId: string;
  heartbeat: { stop(): void };
  clock: ServiceClock;
  pool: JobPool;
  writer: UnitResultWriter;
  utils: WorkerUtils;
  database: RenewableDb;
  db: Db;
  /** Called before the jobs still running are handed back, so that their units are not stored. */
  handingBack(): void;
}

/**
 * Stops a worker in order: no more heartbeats or clock checks, no new jobs; the jobs in flight
 * finish, or after `timeoutMs` are handed back (force-unlocked) and redone elsewhere, idempotently;
 * then what is batched is stored, the pool's heartbeat rows deleted and connections closed.
 */
export async function stopWorker(worker: RunningWorker, timeoutMs: number): Promise<void> {
  worker.heartbeat.stop();
  worker.clock.stopWatching();
  await worker.pool.stop(timeoutMs, async (lockOwners) => {
    worker.handingBack();
    await worker.utils.forceUnlockWorkers(lockOwners).catch(() => {});
  });
  await worker.writer.flush();
  await forgetPool(worker.db, worker.poolId).catch(() => {});
  await worker.utils.release();
  worker.pool.release();
  await worker.clock.close();
  // Prisma 6.19 never gives back a connection whose transaction lost its server (the failed
  // ROLLBACK skips the release), and ending its pool then waits for it forever: bounded there.
  await worker.database.close();
}

import { z } from "zod";
import { hostname } from "node:os";
import type { WorkerUtils } from "graphile-worker";
import type { Db } from "../db/prisma";
import { rowsOf } from "../db/rows";

// graphile-worker 0.17 locks jobs in the name of the worker pool and keeps a crashed pool's locks for
// 4 hours; its public interface cannot say which pools are alive. Each pool therefore beats in a table
// of our own (`replay_workers`), and pools that stopped beating have their jobs handed back with
// graphile-worker's own force_unlock_workers.

type Sql = Pick<Db, "$executeRaw" | "$queryRaw">;

/** Records that the pools `lockOwners` of this process (`poolId`) are alive. */
async function beat(db: Sql, poolId: string, lockOwners: string[]): Promise<void> {
  if (lockOwners.length === 0) return;
  await db.$executeRaw`
    INSERT INTO replay_workers (worker_id, pool_id, hostname, pid, heartbeat_at)
    SELECT id, ${poolId}, ${hostname()}, ${process.pid}::int, now() FROM unnest(${lockOwners}::text[]) AS id
    ON CONFLICT (worker_id) DO UPDATE SET heartbeat_at = now()`;
}

/**
 * Hands back the jobs of pools that stopped beating (crashed or killed) and forgets them; returns how
 * many pools that was. Never `ownLockOwners`: after a database outage their rows are old too, but
 * they are alive. A pool that died before its first heartbeat has no row at all: its jobs, locked
 * for longer than a heartbeat could take, are handed back too (graphile-worker would wait 4 hours).
 */
async function unlockDeadPools(db: Sql, utils: WorkerUtils, ownLockOwners: string[], staleAfterMs: number): Promise<number> {
  const staleAfterSeconds = staleAfterMs / 1000;
  const stale = rowsOf(
    z.object({ worker_id: z.string() }),
    await db.$queryRaw`
    WITH expired AS (
      DELETE FROM replay_workers
       WHERE heartbeat_at < now() - make_interval(secs => ${staleAfterSeconds}::float8) AND NOT (worker_id = ANY(${ownLockOwners}::text[]))
      RETURNING worker_id)
    SELECT worker_id FROM expired
    UNION
    SELECT DISTINCT j.locked_by FROM graphile_worker.jobs j
     WHERE j.locked_by IS NOT NULL AND NOT (j.locked_by = ANY(${ownLockOwners}::text[]))
       AND j.locked_at < now() - make_interval(secs => ${staleAfterSeconds}::float8)
       AND NOT EXISTS (SELECT 1 FROM replay_workers w WHERE w.worker_id = j.locked_by)`,
  );
  if (stale.length) await utils.forceUnlockWorkers(stale.map((s) => s.worker_id));
  return stale.length;
}

/** Forgets this process's pools at a clean stop. */
export async function forgetPool(db: Sql, poolId: string): Promise<void> {
  await db.$executeRaw`DELETE FROM replay_workers WHERE pool_id = ${poolId}`;
}

const HEARTBEAT_MS = 1_000;

/**
 * Beats for this process's pools every second and hands back dead pools' jobs; the first round is
 * awaited (a worker is ready once it has beaten). stop() ends the rounds.
 */
export async function startHeartbeat(
  db: Sql,
  utils: WorkerUtils,
  options: { poolId: string; lockOwners: () => string[]; staleAfterMs: number; log: (line: string) => void },
): Promise<{ stop(): void }> {
  const round = async () => {
    const ids = options.lockOwners();
    await beat(db, options.poolId, ids);
    const unlocked = await unlockDeadPools(db, utils, ids, options.staleAfterMs);
    if (unlocked) options.log(`unlocked the jobs of ${unlocked} worker(s) whose heartbeat stopped`);
  };
  const beating = setInterval(() => {
    round().catch((error: unknown) => options.log(`heartbeat failed: ${(error as Error).message}`));
  }, HEARTBEAT_MS);
  try {
    await round();
  } catch (error) {
    clearInterval(beating);
    throw error;
  }
  return { stop: () => clearInterval(beating) };
}

import { z } from "zod";
import type { WorkerUtils } from "graphile-worker";
import type { Db } from "../db/prisma";
import type { SqlTx } from "../db/sql-transaction";
import { onlyRowOf } from "../db/rows";

// The job queue through graphile-worker's public interface only: its `jobs` view, job keys and its
// SQL functions (its `_private_*` tables may change with any release). Each feature defines its own
// jobs beside its code with defineJob (job-definition.ts: name, payload schema, attempts, key), and
// enqueues and handles them through that definition; jobs are found again by key, since the view has no payload.

type Sql = Pick<Db, "$queryRaw">;
type Tx = Pick<SqlTx, "$queryRaw">;

/** graphile-worker's add_jobs inside the caller's transaction, in order, each with its key and `maxAttempts`. */
export async function addKeyedJobs(
  tx: Tx,
  task: string,
  specs: ReadonlyArray<{ payload: unknown; key: string }>,
  maxAttempts: number,
): Promise<void> {
  await tx.$queryRaw`
    SELECT count(*) FROM graphile_worker.add_jobs(ARRAY(
      SELECT ROW(${task}, spec->'payload', NULL, NULL, ${maxAttempts}::int, spec->>'key', NULL, NULL)::graphile_worker.job_spec
        FROM jsonb_array_elements(${JSON.stringify(specs)}::jsonb) WITH ORDINALITY AS s(spec, n)
       ORDER BY n))`;
}

/**
 * One job inside the caller's transaction (it runs once that commits, and not before `runAt` when
 * given); a second add with the same key is merged into it.
 */
export async function addKeyedJob(tx: Tx, task: string, payload: unknown, key: string, maxAttempts: number, runAt?: Date): Promise<void> {
  await tx.$queryRaw`
    SELECT id FROM graphile_worker.add_job(${task}, ${JSON.stringify(payload)}::json, max_attempts => ${maxAttempts}::int, job_key => ${key},
                                           run_at => coalesce(${runAt ?? null}::timestamptz, now()))`;
}

/** One job outside any transaction, through graphile-worker's utilities; merged into a queued one with the same key. */
export async function addJobNow(utils: WorkerUtils, task: string, payload: unknown, key: string, maxAttempts: number): Promise<void> {
  await utils.addJob(task, payload as Record<string, unknown>, { jobKey: key, maxAttempts });
}

/** Permanently fails the jobs of `tasks` keyed under `keyPrefix` that no worker holds, so none starts; returns how many. */
export async function failQueuedJobs(db: Sql, keyPrefix: string, tasks: readonly string[], reason: string): Promise<number> {
  const { failed } = onlyRowOf(
    z.object({ failed: z.number() }),
    await db.$queryRaw`
    SELECT count(*)::int AS failed FROM graphile_worker.permanently_fail_jobs(ARRAY(
      SELECT id FROM graphile_worker.jobs
       WHERE starts_with(key, ${keyPrefix}) AND task_identifier = ANY(${tasks}::text[]) AND locked_at IS NULL
    ), ${reason})`,
  );
  return failed;
}

/** The job with `key` as the queue holds it: its attempts, whether a worker holds it, its last error; null when none is queued. */
export async function jobOfKey(
  db: Sql,
  key: string,
): Promise<{ attempts: number; maxAttempts: number; locked: boolean; lastError: string | null } | null> {
  const [job] = z
    .array(z.object({ attempts: z.number(), max_attempts: z.number(), locked: z.boolean(), last_error: z.string().nullable() }))
    .parse(
      await db.$queryRaw`SELECT attempts, max_attempts, locked_at IS NOT NULL AS locked, last_error FROM graphile_worker.jobs WHERE key = ${key}`,
    );
  return job ? { attempts: job.attempts, maxAttempts: job.max_attempts, locked: job.locked, lastError: job.last_error } : null;
}

/** Jobs keyed under `keyPrefix` that a worker holds right now. */
export async function lockedJobCount(db: Sql, keyPrefix: string): Promise<number> {
  const { locked } = onlyRowOf(
    z.object({ locked: z.number() }),
    await db.$queryRaw`
    SELECT count(*)::int AS locked FROM graphile_worker.jobs
     WHERE starts_with(key, ${keyPrefix}) AND locked_at IS NOT NULL`,
  );
  return locked;
}

/** Jobs of `tasks` keyed under `keyPrefix` in the queue, locked or not. */
export async function queuedJobCount(db: Sql, keyPrefix: string, tasks: readonly string[]): Promise<number> {
  const { queued } = onlyRowOf(
    z.object({ queued: z.number() }),
    await db.$queryRaw`
    SELECT count(*)::int AS queued FROM graphile_worker.jobs
     WHERE starts_with(key, ${keyPrefix}) AND task_identifier = ANY(${tasks}::text[])`,
  );
  return queued;
}

/** Jobs that will still run (attempts left), among those keyed `keys`, or all of them. */
export async function runnableJobCount(db: Sql, keys?: string[]): Promise<number> {
  const { runnable } = keys
    ? onlyRowOf(
        z.object({ runnable: z.number() }),
        await db.$queryRaw`SELECT count(*)::int AS runnable FROM graphile_worker.jobs WHERE key = ANY(${keys}::text[]) AND attempts < max_attempts`,
      )
    : onlyRowOf(
        z.object({ runnable: z.number() }),
        await db.$queryRaw`SELECT count(*)::int AS runnable FROM graphile_worker.jobs WHERE attempts < max_attempts`,
      );
  return runnable;
}

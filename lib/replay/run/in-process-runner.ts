import { hostname } from "node:os";
import { z } from "zod";
import type { Db } from "../../db/prisma";
import { runnerGone } from "../rules/runner-liveness";

/** How often an in-process replay says it is alive (runner-liveness.ts judges it gone after 10 s). */
const RUNNER_HEARTBEAT_MS = 1_000;

/**
 * Records this process as the replay of an experiment it has just created and keeps its heartbeat (PostgreSQL's
 * clock, so that hosts need not agree on the time) until stop(). One small UPDATE a second stays off
 * the replay's timing path.
 */
export async function ownExperiment(db: Db, experimentId: string): Promise<{ stop(): void }> {
  await db.$executeRaw`
    UPDATE experiments SET runner_host = ${hostname()}, runner_pid = ${process.pid}::int, runner_heartbeat_at = now() WHERE id = ${experimentId}::uuid`;
  const beating = setInterval(() => {
    db.$executeRaw`UPDATE experiments SET runner_heartbeat_at = now() WHERE id = ${experimentId}::uuid AND state IN ('queued', 'running')`.catch(
      () => {},
    );
  }, RUNNER_HEARTBEAT_MS);
  beating.unref();
  return { stop: () => clearInterval(beating) };
}

/** Marks a queued or running experiment interrupted: its stored runs stay, it never becomes running again. */
export async function markExperimentInterrupted(db: Db, experimentId: string, reason: string): Promise<void> {
  await db.experiment.updateMany({
    where: { id: experimentId, state: { in: ["queued", "running"] } },
    data: { state: "interrupted", error: reason, finishedAt: new Date() },
  });
}

const runningRow = z.object({
  id: z.string(),
  runner_host: z.string(),
  runner_pid: z.number().int(),
  runner_heartbeat_at: z.date(),
  now: z.date(),
});

const pidAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

/**
 * Finds unfinished (queued or running) in-process experiments whose replay process is gone (SIGKILL,
 * a crash, its machine down: nothing could mark them) and marks them interrupted; returns their ids. Called when the
 * replay CLI or a worker starts and when experiments are listed, so none stays `running` for good.
 */
export async function sweepInterruptedExperiments(db: Db): Promise<string[]> {
  const rows = z.array(runningRow).parse(
    await db.$queryRaw`
      SELECT id::text AS id, runner_host, runner_pid, runner_heartbeat_at, now() AS now
        FROM experiments WHERE state IN ('queued', 'running') AND runner_host IS NOT NULL`,
  );
  const host = hostname();
  const gone = rows.filter((r) =>
    runnerGone({ host: r.runner_host, pid: r.runner_pid, heartbeatAt: r.runner_heartbeat_at }, { host, now: r.now, pidAlive }),
  );
  for (const r of gone) {
    // Only if it has not beaten since it was read: a runner that was merely slow keeps its experiment.
    await db.experiment.updateMany({
      where: { id: r.id, state: { in: ["queued", "running"] }, runnerHeartbeatAt: r.runner_heartbeat_at },
      data: {
        state: "interrupted",
        error: `its replay process (pid ${r.runner_pid} on ${r.runner_host}) stopped before the grid finished`,
        finishedAt: new Date(),
      },
    });
  }
  return gone.map((r) => r.id);
}

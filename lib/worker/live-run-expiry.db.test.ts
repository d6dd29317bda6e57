import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { queuedJobCount } from "../jobs/queue";
import { createEvaluation } from "../evaluations/manage/create-evaluation";
import { expireLiveRunJob } from "../evaluations/live/live-run-job";
import { openLiveRun } from "../evaluations/live/open-live-run";
import { evaluationSummary } from "../evaluations/read/summary";
import { createTestDatabase, type TestDatabase } from "../testing/database";
import { WORKED_POLICY } from "../testing/evaluation-example";
import { service, sleep, startWorker, useWorkerProcesses, type WorkerProcess } from "../testing/worker-processes";

// The expire_live_run job as the product runs it: in `workers/replay-worker.ts` processes, on the
// worker's renewable Prisma client. A live run never scored is stored unscored by the job alone
// (no later write finds it), once, even when the worker is SIGKILLed while runs expire.

useWorkerProcesses();
let database: TestDatabase;
let evaluations = 0;

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
});
afterAll(async () => {
  await database?.drop();
});

const newEvaluation = () =>
  createEvaluation(database.db, { name: `expiring ${++evaluations}`, effectPolicy: WORKED_POLICY, liveRunTimeoutSeconds: 1 }, null);

const storedRows = z.array(
  z.object({ external_id: z.string(), finality: z.string(), unscored_reason: z.string().nullable(), n: z.number() }),
);

/** The evaluation's stored runs, one row per external id with how many rows it has. */
async function storedRuns(evaluationId: string) {
  return storedRows.parse(
    await database.db.$queryRaw`
      SELECT external_id, min(finality::text) AS finality, min(unscored_reason) AS unscored_reason, count(*)::int AS n
        FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid GROUP BY external_id ORDER BY external_id`,
  );
}

async function liveRunStates(evaluationId: string): Promise<Record<string, number>> {
  const rows = z
    .array(z.object({ state: z.string(), n: z.number() }))
    .parse(
      await database.db
        .$queryRaw`SELECT state, count(*)::int AS n FROM live_runs WHERE evaluation_id = ${evaluationId}::uuid GROUP BY state`,
    );
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}

async function waitFor(what: string, done: () => Promise<boolean>, workers: WorkerProcess[], timeoutMs = 90_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await done())) {
    const dead = workers.find((w) => w.child.exitCode !== null || w.child.signalCode !== null);
    if (dead) throw new Error(`${what}: worker ${dead.poolId} exited first:\n${dead.output.slice(-40).join("\n")}`);
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(50);
  }
}

const expiredReason = "not scored within 1 s of opening (the evaluation's liveRunTimeoutSeconds)";

describe("live runs expired by the worker's job", () => {
  it("stores a run never scored as unscored in evaluation_runs and in the summary, with no other write", { timeout: 180_000 }, async () => {
    const evaluationId = await newEvaluation();
    for (const externalId of ["a", "b", "c"]) await openLiveRun(database.db, evaluationId, { externalId, taskId: "t" });
    const worker = await startWorker({ databaseUrl: database.url, serviceUrl: service.url, concurrency: 2 });
    await waitFor("three runs stored", async () => (await storedRuns(evaluationId)).length === 3, [worker]);

    expect(await storedRuns(evaluationId)).toEqual(
      ["a", "b", "c"].map((external_id) => ({ external_id, finality: "unscored", unscored_reason: expiredReason, n: 1 })),
    );
    expect(await liveRunStates(evaluationId)).toEqual({ expired: 3 });
    expect(await evaluationSummary(database.db, evaluationId)).toMatchObject({ runs: 3, unscored: 3 });
    expect(worker.output.filter((line) => /not scored within its timeout, stored unscored/.test(line))).toHaveLength(3);
    expect(worker.output.filter((line) => /poolOf/.test(line))).toEqual([]);
    expect(await queuedJobCount(database.db, "expire-live-run:", [expireLiveRunJob.name])).toBe(0);
    expect(await worker.stop("SIGTERM")).toEqual({ code: 0, signal: null });
  });

  it(
    "stores every run that expired exactly once when the worker is SIGKILLed while they expire and started again",
    { timeout: 240_000 },
    async () => {
      const evaluationId = await newEvaluation();
      let opened = 0;
      let opening = true;
      // Runs keep opening (each due 1 s later) before, during and after the kill.
      const openRuns = (async () => {
        while (opening) {
          await openLiveRun(database.db, evaluationId, { externalId: `run-${String(++opened).padStart(4, "0")}`, taskId: "t" });
          await sleep(20);
        }
      })();
      const doomed = await startWorker({ databaseUrl: database.url, serviceUrl: service.url, concurrency: 4 });
      await waitFor("the first runs stored", async () => (await storedRuns(evaluationId)).length >= 5, [doomed]);
      await doomed.stop("SIGKILL");
      const storedAtKill = (await storedRuns(evaluationId)).length;
      await sleep(2_000);
      const rescuer = await startWorker({ databaseUrl: database.url, serviceUrl: service.url, concurrency: 4 });
      await sleep(2_000);
      opening = false;
      await openRuns;
      expect(storedAtKill).toBeLessThan(opened);

      await waitFor("every opened run stored", async () => (await storedRuns(evaluationId)).length === opened, [rescuer], 120_000);
      const stored = await storedRuns(evaluationId);
      expect(stored.filter((run) => run.n !== 1 || run.finality !== "unscored" || run.unscored_reason !== expiredReason)).toEqual([]);
      expect(stored).toHaveLength(opened);
      expect(await liveRunStates(evaluationId)).toEqual({ expired: opened });
      expect(await evaluationSummary(database.db, evaluationId)).toMatchObject({ runs: opened, unscored: opened });
      // No job failed for good or is left waiting: the dead pool's jobs were handed back and ran.
      await waitFor(
        "no expiry job left",
        async () => (await queuedJobCount(database.db, "expire-live-run:", [expireLiveRunJob.name])) === 0,
        [rescuer],
      );
      expect(await rescuer.stop("SIGTERM")).toEqual({ code: 0, signal: null });
    },
  );
});

import { spawn } from "node:child_process";

import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createQueuedExperiment } from "../experiments/create-experiment";
import { experimentStatus } from "../experiments/progress";
import { expectedRunCount, gridUnits } from "../replay/rules/grid";
import { experimentSummary } from "../replay/store/summary";
import { createTestDatabase, type TestDatabase } from "../testing/database";
import {
  GHOST_POOL,
  TWO_WORKER_CONCURRENCY,
  duplicateNaturalKeys,
  expectExact,
  labelViolations,
  lockedJobs,
  paper,
  service,
  services,
  sleep,
  startService,
  startWorker,
  useWorkerProcesses,
  waitForFinal,
  waitForProgress,
  withTimeout,
} from "../testing/worker-processes";

// The replay worker as it runs in production: separate `node workers/replay-worker.ts` processes
// sharing one PostgreSQL queue, a delayed-write service process, and failures made for real
// (SIGKILL, SIGTERM, the service going away mid-experiment). Every test asserts correctness only
// (exact counts, Table 2, checks), never speed: polling budgets are generous. A PostgreSQL restart: job-worker-restart.db.test.ts.

useWorkerProcesses();
let database: TestDatabase;

describe("replay workers as separate processes against one queue", () => {
  beforeAll(async () => {
    database = await createTestDatabase(inject("embeddedAdminUrl"));
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("two workers share the paper grid: every unit run once, by both, Table 2 exact", { timeout: 420_000 }, async () => {
    const config = paper();
    const units = gridUnits(config).length;
    // Two replaying processes, the service and PostgreSQL share 2 cores here: at 32 units each, the
    // replay's own lag reached 25-60 ms in the first experiment the workers ran and flipped some 25 ms
    // labels (the checks caught it only for snapshot trials). 8 units each keep 25 ms measurable.
    const [first, second] = await Promise.all([
      startWorker({ databaseUrl: database.url, serviceUrl: service.url, concurrency: TWO_WORKER_CONCURRENCY }),
      startWorker({ databaseUrl: database.url, serviceUrl: service.url, concurrency: TWO_WORKER_CONCURRENCY }),
    ]);
    const experimentId = await createQueuedExperiment(database.db, config);
    await waitForFinal(database.db, experimentId, [first, second]);
    await expectExact(database.db, experimentId, config);

    const exits = await Promise.all([first.stop("SIGTERM"), second.stop("SIGTERM")]);
    expect(exits).toEqual([
      { code: 0, signal: null },
      { code: 0, signal: null },
    ]);
    const ran = [first.unitsRun(), second.unitsRun()];
    expect(ran[0]).toBeGreaterThan(0);
    expect(ran[1]).toBeGreaterThan(0);
    expect(ran[0]! + ran[1]!).toBe(units);
    expect(await lockedJobs(database.db, experimentId)).toBe(0);
  });

  it(
    "jobs locked by a pool that died before its first heartbeat are handed back within seconds, not graphile-worker's 4 hours",
    { timeout: 420_000 },
    async () => {
      const config = paper({ delaysMs: [0, 25], schedules: 1, repetitions: 2 });
      const experimentId = await createQueuedExperiment(database.db, config);
      // A pool that locked every job of the experiment and died at once: it never wrote a heartbeat.
      const units = gridUnits(config).length;
      const ghost = spawn(process.execPath, ["--import", "tsx", GHOST_POOL, database.url, String(units)], { stdio: "ignore" });
      const exited = new Promise((resolve) => ghost.once("exit", resolve));
      try {
        for (let waited = 0; (await lockedJobs(database.db, experimentId)) < units; waited += 100) {
          if (waited > 60_000) throw new Error("the ghost pool did not lock the experiment's jobs within 60 s");
          await sleep(100);
        }
      } finally {
        ghost.kill("SIGKILL");
        await exited;
      }
      expect(await lockedJobs(database.db, experimentId)).toBe(units);
      const worker = await startWorker({ databaseUrl: database.url, serviceUrl: service.url });
      await waitForFinal(database.db, experimentId, [worker], 60_000);
      await expectExact(database.db, experimentId, config);
      expect(worker.output.some((line) => /unlocked the jobs of 1 worker/.test(line))).toBe(true);
      expect(await worker.stop("SIGTERM")).toEqual({ code: 0, signal: null });
    },
  );

  it("a SIGKILLed worker loses no unit and duplicates none: another takes over its jobs", { timeout: 420_000 }, async () => {
    const config = paper();
    const total = expectedRunCount(config);
    const doomed = await startWorker({ databaseUrl: database.url, serviceUrl: service.url });
    const experimentId = await createQueuedExperiment(database.db, config);
    await waitForProgress(database.db, experimentId);
    await doomed.stop("SIGKILL");
    const atKill = await experimentStatus(database.db, experimentId);
    // The kill must land mid-experiment, with jobs still locked by the dead pool.
    expect(atKill!.progress.done).toBeGreaterThan(0);
    expect(atKill!.progress.done).toBeLessThan(total);
    expect(await lockedJobs(database.db, experimentId)).toBeGreaterThan(0);

    const rescuer = await startWorker({ databaseUrl: database.url, serviceUrl: service.url });
    await waitForFinal(database.db, experimentId, [rescuer]);
    await expectExact(database.db, experimentId, config);
    // The dead pool's jobs came back through the heartbeat rule, and units it had started were
    // redone in namespaces of their own (the checks above include namespaces_disjoint).
    expect(rescuer.output.some((line) => /unlocked the jobs of \d+ worker\(s\) whose heartbeat stopped/.test(line))).toBe(true);
    const retried = await database.db.run.count({ where: { experimentId, namespace: { contains: "/retry" } } });
    expect(retried).toBeGreaterThan(0);
    expect(await rescuer.stop("SIGTERM")).toEqual({ code: 0, signal: null });
    expect(await lockedJobs(database.db, experimentId)).toBe(0);
  });

  // 10 s: the jobs in flight finish. 0 s: the shutdown times out at once and hands them back unfinished.
  it.each([
    { shutdownTimeoutMs: 10_000, path: "finishes its jobs" },
    { shutdownTimeoutMs: 0, path: "hands back its jobs" },
  ])(
    "SIGTERM (SHUTDOWN_TIMEOUT_MS=$shutdownTimeoutMs): readiness fails at once, the worker $path and exits 0; another completes the grid",
    { timeout: 420_000 },
    async ({ shutdownTimeoutMs }) => {
      const config = paper();
      const total = expectedRunCount(config);
      const leaving = await startWorker({ databaseUrl: database.url, serviceUrl: service.url, shutdownTimeoutMs });
      const readyz = async () => (await fetch(`http://127.0.0.1:${leaving.healthPort}/readyz`)).status;
      expect(await readyz()).toBe(200);
      const experimentId = await createQueuedExperiment(database.db, config);
      await waitForProgress(database.db, experimentId);

      leaving.child.kill("SIGTERM");
      let sawNotReady = false;
      while (leaving.child.exitCode === null && !sawNotReady) {
        const status = await readyz().catch(() => null); // null: the health server has closed
        if (status === 503) sawNotReady = true;
        else if (status === null) break;
        else await sleep(20);
      }
      expect(sawNotReady).toBe(true);
      const exit = await withTimeout(
        leaving.exited,
        shutdownTimeoutMs + 60_000,
        () => `worker still running ${shutdownTimeoutMs + 60_000} ms after SIGTERM`,
      );
      expect(exit).toEqual({ code: 0, signal: null });
      expect(leaving.unitsRun()).toBeGreaterThan(0);
      // Nothing stays locked by the worker that left: its queue is free for others at once.
      expect(await lockedJobs(database.db, experimentId)).toBe(0);
      const atExit = await experimentStatus(database.db, experimentId);
      expect(atExit!.progress.done).toBeLessThan(total);

      const successor = await startWorker({ databaseUrl: database.url, serviceUrl: service.url });
      await waitForFinal(database.db, experimentId, [successor]);
      await expectExact(database.db, experimentId, config);
      expect(await successor.stop("SIGTERM")).toEqual({ code: 0, signal: null });
      expect(successor.unitsRun()).toBeGreaterThan(0);
    },
  );

  it(
    "the delayed-write service dies mid-experiment and returns on the same port: every run is stored once, the failed ones as environment failures with evidence",
    { timeout: 420_000 },
    async () => {
      // No retry under the predeclared rule, so that the units that met the dead service are recorded as such.
      const config = paper({ environmentFailureRetries: 0 });
      const total = expectedRunCount(config);
      const first = await startService();
      const port = Number(new URL(first.url).port);
      const worker = await startWorker({ databaseUrl: database.url, serviceUrl: first.url });
      const experimentId = await createQueuedExperiment(database.db, config);
      await waitForProgress(database.db, experimentId);
      first.child.kill("SIGKILL");
      await new Promise((resolve) => first.child.once("exit", resolve));
      services.delete(first);
      const atKill = await experimentStatus(database.db, experimentId);
      expect(atKill!.progress.done).toBeLessThan(total);
      await sleep(1_500);
      const second = await startService(port);
      expect(second.url).toBe(first.url);

      const final = await waitForFinal(database.db, experimentId, [worker]);
      // The environment failures are counted below, never dropped; whether the experiment is then
      // "completed" or "failed" is for its checks to say (a failed one must name them).
      expect(["completed", "failed"]).toContain(final.state);
      expect(await database.db.run.count({ where: { experimentId } })).toBe(total);
      expect(final.progress).toEqual({ done: total, total });
      expect(await duplicateNaturalKeys(database.db, experimentId)).toEqual([]);

      const summary = await experimentSummary(database.db, experimentId);
      const failures = await database.db.run.findMany({
        where: { experimentId, classification: "environment_failure" },
        select: { evidence: true, endpointLabel: true, recordedLabel: true },
      });
      expect(failures.length).toBeGreaterThan(0);
      expect(summary.classifications.environment_failure).toBe(failures.length);
      expect(summary.classifications.completed + summary.classifications.environment_failure).toBe(total);
      for (const run of failures) {
        const evidence = run.evidence as { kind?: string; serviceFailures?: Array<{ request?: unknown; detail?: unknown }> };
        expect(evidence.kind).toBe("environment_failure");
        expect(evidence.serviceFailures?.length).toBeGreaterThan(0);
        for (const failure of evidence.serviceFailures!) {
          expect(typeof failure.request).toBe("string");
          expect(typeof failure.detail).toBe("string");
        }
        expect(run.endpointLabel).toBeNull();
        expect(run.recordedLabel).toBe("unresolved");
      }
      // Units that ran whole against one service instance kept exactly the labels of their cell.
      expect(summary.classifications.completed).toBeGreaterThan(0);
      expect(await labelViolations(database.db, experimentId)).toEqual([]);
      if (final.state === "failed") expect(final.error).toMatch(/implementation checks failed/);
      expect(summary.checks.length).toBeGreaterThanOrEqual(12);

      expect(await worker.stop("SIGTERM")).toEqual({ code: 0, signal: null });
      expect(worker.unitsRun()).toBe(gridUnits(config).length);
      expect(await lockedJobs(database.db, experimentId)).toBe(0);
    },
  );
});

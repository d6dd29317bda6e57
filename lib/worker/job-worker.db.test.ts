import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, onTestFailed } from "vitest";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../db/embedded";
import type { Db } from "../db/prisma";
import { spawnDelayedWriteService, type ServiceProcess } from "../delayed-write/spawn";
import { createQueuedExperiment } from "../experiments/create-experiment";
import { lockedExperimentJobCount } from "../experiments/experiment-jobs";
import { experimentStatus, type ExperimentStatus } from "../experiments/progress";
import { replayConfigSchema, type ReplayConfig, type ReplayConfigInput } from "../replay/rules/config";
import { table2Mismatches } from "../replay/rules/expected-table2";
import { expectedRunCount, gridUnits } from "../replay/rules/grid";
import { experimentSummary } from "../replay/store/summary";
import { createTestDatabase, type TestDatabase } from "../testing/database";

// The replay worker as it runs in production: separate `node workers/replay-worker.ts` processes
// sharing one PostgreSQL queue, a delayed-write service process, and failures made for real
// (SIGKILL, SIGTERM, the service or the database going away mid-experiment). Every test asserts
// correctness only (exact counts, Table 2, checks), never speed: polling budgets are generous.

const ENTRY = path.resolve("workers/replay-worker.ts");
const GHOST_POOL = path.resolve("lib/testing/ghost-pool.ts");
const CONCURRENCY = 32;
const TWO_WORKER_CONCURRENCY = 8;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const paper = (overrides: ReplayConfigInput = {}): ReplayConfig => replayConfigSchema.parse(overrides);

// ---------------------------------------------------------------------------------------------
// Worker processes

interface WorkerProcess {
  child: ChildProcess;
  poolId: string;
  healthPort: number;
  /** stdout and stderr lines, in arrival order. */
  output: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** N from "stopped after running N units", once the worker has stopped cleanly. */
  unitsRun(): number | null;
  /** Sends `signal` and waits for the exit. */
  stop(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const live = new Set<WorkerProcess>();
const services = new Set<ServiceProcess>();

interface WorkerEnv {
  databaseUrl: string;
  serviceUrl: string;
  concurrency?: number;
  shutdownTimeoutMs?: number;
}

/** Spawns `workers/replay-worker.ts` and resolves once it prints its ready line. */
async function startWorker(options: WorkerEnv): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", ENTRY], {
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      DELAYED_WRITE_URL: options.serviceUrl,
      WORKER_CONCURRENCY: String(options.concurrency ?? CONCURRENCY),
      HEALTH_PORT: "0",
      SHUTDOWN_TIMEOUT_MS: String(options.shutdownTimeoutMs ?? 30_000),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  createInterface({ input: child.stderr! }).on("line", (line) => output.push(`[stderr] ${line}`));
  const ready = new Promise<{ poolId: string; healthPort: number }>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      output.push(line);
      const json = line.indexOf("{");
      if (json < 0) return;
      try {
        const event = JSON.parse(line.slice(json)) as { event?: string; poolId?: string; healthPort?: number };
        if (event.event === "ready" && event.poolId && event.healthPort) resolve({ poolId: event.poolId, healthPort: event.healthPort });
      } catch {
        // a log line that merely contains a brace
      }
    });
    void exited.then(({ code, signal }) =>
      reject(new Error(`worker exited (${code ?? signal}) before it was ready:\n${output.join("\n")}`)),
    );
  });
  const started = await withTimeout(ready, 90_000, () => `worker not ready within 90 s:\n${output.join("\n")}`).catch((error: unknown) => {
    child.kill("SIGKILL");
    throw error;
  });
  const worker: WorkerProcess = {
    child,
    ...started,
    output,
    exited,
    unitsRun() {
      for (const line of output) {
        const match = /stopped after running (\d+) units/.exec(line);
        if (match) return Number(match[1]);
      }
      return null;
    },
    async stop(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  live.add(worker);
  void exited.then(() => live.delete(worker));
  // On failure, show what every worker of the test said.
  onTestFailed(() => {
    const said = output.filter((line) => !/^\s+at /.test(line.replace(/^\[stderr\] /, "")));
    console.log(`--- worker ${worker.poolId} (pid ${child.pid}) ---\n${said.slice(-100).join("\n")}`);
  });
  return worker;
}

async function startService(port?: number): Promise<ServiceProcess> {
  const service = await spawnDelayedWriteService(port === undefined ? {} : { port });
  services.add(service);
  return service;
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message())), ms);
    }),
  ]);
}

// ---------------------------------------------------------------------------------------------
// Experiment polling and the exactness assertions

/** experimentStatus, tolerating a database that is briefly away (the restart test). */
async function statusOf(db: Db, experimentId: string): Promise<ExperimentStatus | null> {
  try {
    return await experimentStatus(db, experimentId);
  } catch {
    return null;
  }
}

/** Polls until `predicate` holds for the experiment's status; fails with the last status seen. */
async function waitForStatus(
  db: Db,
  experimentId: string,
  predicate: (s: ExperimentStatus) => boolean,
  timeoutMs: number,
  what: string,
  workers: WorkerProcess[] = [],
): Promise<ExperimentStatus> {
  const deadline = performance.now() + timeoutMs;
  let last: ExperimentStatus | null = null;
  for (;;) {
    const status = await statusOf(db, experimentId);
    if (status) last = status;
    if (status && predicate(status)) return status;
    // A worker that was meant to carry the experiment died: say so now rather than at the deadline.
    const dead = workers.find((w) => w.child.exitCode !== null || w.child.signalCode !== null);
    if (dead)
      throw new Error(
        `${what}: worker ${dead.poolId} exited (${dead.child.exitCode ?? dead.child.signalCode}) first:\n${dead.output.slice(-40).join("\n")}`,
      );
    if (performance.now() > deadline) {
      throw new Error(
        `${what}: not reached within ${timeoutMs} ms; last status: ${last ? `${last.state} ${last.progress.done}/${last.progress.total}` : "none (database unreachable)"}`,
      );
    }
    await sleep(100);
  }
}

const FINAL = new Set(["completed", "failed", "cancelled"]);
const waitForFinal = (db: Db, experimentId: string, workers: WorkerProcess[], timeoutMs = 240_000) =>
  waitForStatus(db, experimentId, (s) => FINAL.has(s.state), timeoutMs, "a final state", workers);
const waitForProgress = (db: Db, experimentId: string) =>
  waitForStatus(db, experimentId, (s) => s.progress.done > 0, 120_000, "first stored runs");

async function duplicateNaturalKeys(db: Db, experimentId: string) {
  return db.$queryRaw<unknown[]>`
    SELECT condition, schedule_id, delay_ms, repetition, role, count(*)::int AS n
      FROM runs WHERE experiment_id = ${experimentId}::uuid
     GROUP BY condition, schedule_id, delay_ms, repetition, role HAVING count(*) > 1`;
}

/**
 * Completed runs whose labels differ from what the mechanism dictates for their own cell: at delay 0
 * the write lands before the acknowledgement, at every nonzero delay after the endpoint and after
 * B's initialisation. Holds run by run, so it also judges an experiment with failed units.
 */
async function labelViolations(db: Db, experimentId: string): Promise<string[]> {
  const rows = await db.$queryRaw<
    Array<{
      condition: string;
      delay_ms: number;
      role: string;
      at_ms: number;
      endpoint_label: string | null;
      terminal_label: string | null;
      recorded_label: string | null;
      exposure: boolean | null;
    }>
  >`
    SELECT condition, delay_ms, role, round((started_at_ms - first_ms)::numeric)::int AS at_ms, endpoint_label, terminal_label, recorded_label, exposure FROM (
      SELECT *, CASE WHEN delay_ms = 0 THEN 'success' ELSE 'failure' END AS at_delay, min(started_at_ms) OVER () AS first_ms
        FROM runs WHERE experiment_id = ${experimentId}::uuid) r
     WHERE classification = 'completed' AND NOT COALESCE(CASE
       WHEN test = 'finality' AND condition LIKE 'sync\_%' THEN
         endpoint_label = 'success' AND terminal_label = 'success' AND recorded_label = 'success'
       WHEN condition = 'snapshot' THEN
         endpoint_label = at_delay AND terminal_label = 'success' AND recorded_label = at_delay
       WHEN condition = 'reconciliation' THEN
         endpoint_label = at_delay AND terminal_label = 'success' AND recorded_label = 'success'
       WHEN condition = 'verified_cancellation' THEN
         endpoint_label = at_delay AND terminal_label = at_delay AND recorded_label = at_delay
       WHEN test = 'separation' AND role = 'A' AND condition = 'no_write' THEN
         recorded_label IS NULL
       WHEN test = 'separation' AND role = 'A' THEN
         terminal_label = 'success'
       WHEN test = 'separation' AND role = 'B' THEN
         exposure = (condition IN ('shared', 'grouped') AND delay_ms > 0) AND score = CASE WHEN exposure THEN 0 ELSE 1 END
     END, false)
     ORDER BY started_at_ms`;
  return rows.map(
    (r) =>
      `${r.condition}/${r.role} d${r.delay_ms} at +${r.at_ms} ms: endpoint ${r.endpoint_label}, terminal ${r.terminal_label}, recorded ${r.recorded_label}, exposure ${r.exposure}`,
  );
}

/** The experiment completed with exactly the grid's runs, once each, Table 2 exact and every check passed. */
async function expectExact(db: Db, experimentId: string, config: ReplayConfig) {
  const total = expectedRunCount(config);
  const status = await experimentStatus(db, experimentId);
  const summary = await experimentSummary(db, experimentId);
  // One comparison, so that a failure shows every problem at once.
  expect({
    state: status?.state,
    storedRuns: await db.run.count({ where: { experimentId } }),
    progress: status?.progress,
    duplicateNaturalKeys: await duplicateNaturalKeys(db, experimentId),
    failedChecks: summary.checks.filter((c) => !c.passed).map((c) => `${c.name}: ${c.evidence}`),
    enoughChecks: summary.checks.length >= 12,
    classifications: summary.classifications,
    table2Mismatches: table2Mismatches(summary, config),
    labelViolations: await labelViolations(db, experimentId),
  }).toEqual({
    state: "completed",
    storedRuns: total,
    progress: { done: total, total },
    duplicateNaturalKeys: [],
    failedChecks: [],
    enoughChecks: true,
    classifications: { completed: total, agent_failure: 0, protocol_stop: 0, environment_failure: 0, missing_evidence: 0 },
    table2Mismatches: [],
    labelViolations: [],
  });
  return summary;
}

/** Jobs of the experiment still locked by some worker. */
const lockedJobs = lockedExperimentJobCount;

// ---------------------------------------------------------------------------------------------

let service: ServiceProcess;
let database: TestDatabase;

beforeAll(async () => {
  service = await startService();
});
afterAll(async () => {
  await service?.stop();
});
afterEach(async () => {
  // Whatever a failed test left behind: our own children only, by their handles.
  await Promise.all([...live].map((w) => w.stop("SIGKILL")));
  await Promise.all([...services].filter((s) => s !== service).map((s) => s.stop()));
  for (const s of [...services]) if (s !== service) services.delete(s);
});

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

describe("a replay worker across a PostgreSQL restart", () => {
  let cluster: EmbeddedDatabase | undefined;
  let dir: string;
  let restartDb: TestDatabase | undefined;

  beforeAll(async () => {
    // A cluster of its own, so that it can be stopped and started; a child of /tmp itself, which the postgres user can enter.
    dir = mkdtempSync(path.join(tmpdir(), "bl-"));
    cluster = await startEmbeddedPostgres(dir);
    restartDb = await createTestDatabase(cluster.url);
  });
  afterAll(async () => {
    await restartDb?.db.$disconnect().catch(() => {});
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("recovers when PostgreSQL restarts mid-experiment: Table 2 exact, every run once", { timeout: 420_000 }, async () => {
    const config = paper();
    const total = expectedRunCount(config);
    const port = Number(new URL(cluster!.url).port);
    const worker = await startWorker({ databaseUrl: restartDb!.url, serviceUrl: service.url });
    const experimentId = await createQueuedExperiment(restartDb!.db, config);
    await waitForProgress(restartDb!.db, experimentId);

    await cluster!.stop();
    cluster = undefined;
    await sleep(2_000);
    cluster = await startEmbeddedPostgres(dir, () => {}, { port });
    expect(Number(new URL(cluster.url).port)).toBe(port);
    const afterRestart = await waitForStatus(restartDb!.db, experimentId, () => true, 60_000, "the database back");
    expect(afterRestart.progress.done).toBeLessThan(total);

    await waitForFinal(restartDb!.db, experimentId, [worker]);
    await expectExact(restartDb!.db, experimentId, config);
    expect(worker.child.exitCode).toBeNull();
    expect(await worker.stop("SIGTERM")).toEqual({ code: 0, signal: null });
    expect(await lockedJobs(restartDb!.db, experimentId)).toBe(0);
  });
});

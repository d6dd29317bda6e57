// What the replay-worker process tests share: worker processes spawned as in production (workers/replay-worker.ts),
// delayed-write service processes, waiting on an experiment's status, and its exactness checks.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, afterEach, beforeAll, expect, onTestFailed } from "vitest";
import type { Db } from "../db/prisma";
import { spawnDelayedWriteService, type ServiceProcess } from "../delayed-write/spawn";
import { lockedExperimentJobCount } from "../experiments/experiment-jobs";
import { experimentStatus, type ExperimentStatus } from "../experiments/progress";
import { replayConfigSchema, type ReplayConfig, type ReplayConfigInput } from "../replay/rules/config";
import { table2Mismatches } from "../replay/rules/expected-table2";
import { expectedRunCount } from "../replay/rules/grid";
import { experimentSummary } from "../replay/store/summary";

export const ENTRY = path.resolve("workers/replay-worker.ts");
export const GHOST_POOL = path.resolve("lib/testing/ghost-pool.ts");
export const CONCURRENCY = 32;
export const TWO_WORKER_CONCURRENCY = 8;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const paper = (overrides: ReplayConfigInput = {}): ReplayConfig => replayConfigSchema.parse(overrides);

// ---------------------------------------------------------------------------------------------
// Worker processes

export interface WorkerProcess {
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

export const live = new Set<WorkerProcess>();
export const services = new Set<ServiceProcess>();

export interface WorkerEnv {
  databaseUrl: string;
  serviceUrl: string;
  concurrency?: number;
  shutdownTimeoutMs?: number;
}

/** Spawns `workers/replay-worker.ts` and resolves once it prints its ready line. */
export async function startWorker(options: WorkerEnv): Promise<WorkerProcess> {
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

export async function startService(port?: number): Promise<ServiceProcess> {
  const service = await spawnDelayedWriteService(port === undefined ? {} : { port });
  services.add(service);
  return service;
}

export function withTimeout<T>(promise: Promise<T>, ms: number, message: () => string): Promise<T> {
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
export async function statusOf(db: Db, experimentId: string): Promise<ExperimentStatus | null> {
  try {
    return await experimentStatus(db, experimentId);
  } catch {
    return null;
  }
}

/** Polls until `predicate` holds for the experiment's status; fails with the last status seen. */
export async function waitForStatus(
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

export const FINAL = new Set(["completed", "failed", "cancelled"]);
export const waitForFinal = (db: Db, experimentId: string, workers: WorkerProcess[], timeoutMs = 240_000) =>
  waitForStatus(db, experimentId, (s) => FINAL.has(s.state), timeoutMs, "a final state", workers);
export const waitForProgress = (db: Db, experimentId: string) =>
  waitForStatus(db, experimentId, (s) => s.progress.done > 0, 120_000, "first stored runs");

export async function duplicateNaturalKeys(db: Db, experimentId: string) {
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
export async function labelViolations(db: Db, experimentId: string): Promise<string[]> {
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
export async function expectExact(db: Db, experimentId: string, config: ReplayConfig) {
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
export const lockedJobs = lockedExperimentJobCount;

// ---------------------------------------------------------------------------------------------
export let service: ServiceProcess;

/** The file's delayed-write service before its tests; after each test, whatever worker or service it left behind is stopped. */
export function useWorkerProcesses(): void {
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
}

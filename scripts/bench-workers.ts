// `npm run bench:workers -- --json FILE`: the queue-backed replay with worker PROCESSES (`--workers 1,2,4` by default).
//
//  (a) Throughput: the paper's grid (2,400 units) enqueued as one experiment, run by 1, 2 and 4
//      worker processes (`node --import tsx workers/replay-worker.ts`, WORKER_CONCURRENCY=64 each).
//      Throughput is in trials per second, where a trial is one unit = one job: a finality trial or
//      a separation pair (A and B together). It is timed from just before the enqueue (the
//      experiment's transaction, which adds its 2,400 jobs) to the experiment's finished_at, which
//      the finalize job sets once every run is stored and the checks ran. Workers are started and
//      reported "ready" before the enqueue, so their start-up (migration check, warm-up) is not
//      timed; they are stopped with SIGTERM after each round.
//  (b) Pickup latency, enqueue to a job starting, with one idle worker process. Method: N tiny
//      experiments are created one after another, each only once the previous one reached its final
//      state (so the worker is idle and waiting on LISTEN/NOTIFY, its poll interval is 1 s), and
//      the latency of each is experiments.started_at - experiments.created_at. created_at is set
//      when the experiment row is inserted, in the same transaction that enqueues its jobs;
//      started_at is set by the worker on its first job of that experiment, after it has read the
//      experiment (one SELECT) and recorded the service (one UPDATE). Both are wall-clock times of
//      processes on this one machine, stored with millisecond precision. So a figure covers: commit
//      of the enqueue, the NOTIFY reaching the worker, graphile-worker fetching and starting the
//      job, and two small queries: a slight overestimate of the bare job start, never an under-.
//      The config schema rejects an empty list of separation conditions, so the smallest grid has
//      two units (one finality trial and one separation pair, both at delay 0); the first of them
//      to start sets started_at. "Idle" is up to the worker: a duplicate finalize job of an earlier
//      experiment (see drainFinalizeJobs) can be retried by it while a later one is picked up.
//
// All processes (workers, delayed-write service, PostgreSQL, this script) share the machine's
// cores: more worker processes need not be faster. The figures are printed as measured; nothing
// is asserted. Every phase has a deadline, and every process started here is stopped at the end.
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import type { Db } from "../lib/db/prisma";
import { createQueuedExperiment } from "../lib/experiments/create-experiment";
import { finalizeJobKey } from "../lib/replay/run/jobs";
import { runnableJobCount } from "../lib/jobs/queue";
import { replayConfigSchema, type ReplayConfig } from "../lib/replay/rules/config";
import { table2Mismatches } from "../lib/replay/rules/expected-table2";
import { gridUnits } from "../lib/replay/rules/grid";
import { HARNESS_LATE } from "../lib/replay/run/run-grid";
import { withReplayStack } from "../lib/replay/run/stack";
import { readWorkerEnv } from "../lib/env";
import { experimentSummary } from "../lib/replay/store/summary";

const { values } = parseArgs({
  options: {
    json: { type: "string" },
    /** Tiny experiments for the pickup latency. */
    pickups: { type: "string", default: "200" },
    /** Worker process counts to measure, comma-separated. */
    workers: { type: "string", default: "1,2,4" },
  },
  strict: true,
});
const PICKUPS = Number(values.pickups);
if (!Number.isInteger(PICKUPS) || PICKUPS < 1 || PICKUPS > 10_000) throw new Error("--pickups must be an integer from 1 to 10000");

const WORKER_COUNTS = values.workers.split(",").map(Number);
if (WORKER_COUNTS.some((n) => !Number.isInteger(n) || n < 1 || n > 16))
  throw new Error("--workers must be a comma-separated list of integers from 1 to 16");
/** Units each worker process replays at once: the workers' own default unless WORKER_CONCURRENCY is set. */
const WORKER_CONCURRENCY = readWorkerEnv().WORKER_CONCURRENCY;
const READY_TIMEOUT_MS = 120_000;
const GRID_TIMEOUT_MS = 10 * 60_000;
const PICKUP_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 45_000; // the worker's own SHUTDOWN_TIMEOUT_MS defaults to 30 s
const DRAIN_TIMEOUT_MS = 30_000;
const FINAL_STATES = new Set(["completed", "failed", "cancelled"]);

const log = (line: string) => console.error(`bench:workers: ${line}`);
const benchStart = performance.now();

// Every child ever started, so that an error, a signal or the process's exit still stops it.
const children = new Set<ChildProcess>();
const aborted = new AbortController();
const onSignal = (signal: NodeJS.Signals) => {
  log(`${signal}: stopping`);
  aborted.abort(new Error(`interrupted by ${signal}`));
  for (const child of children) if (running(child)) child.kill("SIGTERM");
};
process.once("SIGINT", onSignal);
process.once("SIGTERM", onSignal);
process.on("exit", () => {
  for (const child of children) if (running(child)) child.kill("SIGKILL");
});

function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    if (aborted.signal.aborted) return reject(aborted.signal.reason);
    const onAbort = () => (clearTimeout(timer), reject(aborted.signal.reason));
    const timer = setTimeout(() => (aborted.signal.removeEventListener("abort", onAbort), resolve()), ms);
    aborted.signal.addEventListener("abort", onAbort, { once: true });
  });
}

interface WorkerProcess {
  name: string;
  child: ChildProcess;
  exited: Promise<void>;
}

/** Spawns one worker process and resolves once it printed its JSON "ready" line. */
async function startWorker(name: string, serviceUrl: string): Promise<WorkerProcess> {
  // DATABASE_URL is passed on when set; otherwise the worker finds the embedded PostgreSQL this
  // process runs (lib/db/embedded.ts shares a cluster whose owner is alive) and uses it too.
  const child = spawn(process.execPath, ["--import", "tsx", "workers/replay-worker.ts"], {
    env: { ...process.env, DELAYED_WRITE_URL: serviceUrl, WORKER_CONCURRENCY: String(WORKER_CONCURRENCY), HEALTH_PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  const exited = new Promise<void>((resolve) =>
    child.once("exit", (code, signal) => {
      log(`${name} (pid ${child.pid}) exited: code ${code}, signal ${signal}`);
      resolve();
    }),
  );
  createInterface({ input: child.stderr! }).on("line", (line) => console.error(`[${name}] ${line}`));
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not report ready within ${READY_TIMEOUT_MS / 1000} s`)), READY_TIMEOUT_MS);
    const fail = (error: Error) => (clearTimeout(timer), reject(error));
    child.once("error", fail);
    child.once("exit", (code, signal) => fail(new Error(`${name} exited before it was ready (code ${code}, signal ${signal})`)));
    aborted.signal.addEventListener("abort", () => fail(aborted.signal.reason as Error), { once: true });
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const json = line.replace(/^worker: /, "");
      if (json.startsWith("{")) {
        try {
          if ((JSON.parse(json) as { event?: string }).event === "ready") {
            clearTimeout(timer);
            resolve();
            return;
          }
        } catch {
          // not a JSON line: just log it
        }
      }
      console.error(`[${name}] ${line}`);
    });
  });
  const worker = { name, child, exited };
  try {
    await ready;
  } catch (error) {
    await stopWorkers([worker]);
    throw error;
  }
  return worker;
}

/** SIGTERM (the worker finishes or hands back its jobs), then SIGKILL if it has not exited in time. */
async function stopWorkers(workers: WorkerProcess[]): Promise<void> {
  await Promise.all(
    workers.map(async ({ name, child, exited }) => {
      if (running(child)) child.kill("SIGTERM");
      const timedOut = await Promise.race([
        exited.then(() => false),
        new Promise<boolean>((r) => setTimeout(() => r(true), STOP_TIMEOUT_MS).unref()),
      ]);
      if (timedOut && running(child)) {
        log(`${name} did not exit within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM: killing it`);
        child.kill("SIGKILL");
        await exited;
      }
      children.delete(child);
    }),
  );
}

async function withWorkers<T>(count: number, serviceUrl: string, work: () => Promise<T>): Promise<T> {
  const started: WorkerProcess[] = [];
  try {
    const results = await Promise.allSettled(Array.from({ length: count }, (_, i) => startWorker(`w${i + 1}/${count}`, serviceUrl)));
    for (const r of results) if (r.status === "fulfilled") started.push(r.value);
    const failed = results.find((r) => r.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    return await work();
  } finally {
    await stopWorkers(started);
  }
}

/** Polls the experiment until it reaches a final state; returns its row then. */
async function waitFinal(db: Db, experimentId: string, timeoutMs: number, pollMs: number) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const row = await db.experiment.findUniqueOrThrow({
      where: { id: experimentId },
      select: { state: true, error: true, createdAt: true, startedAt: true, finishedAt: true },
    });
    if (FINAL_STATES.has(row.state)) return row;
    if (performance.now() > deadline) throw new Error(`experiment ${experimentId} still ${row.state} after ${timeoutMs / 1000} s`);
    await sleep(pollMs);
  }
}

/**
 * Waits (bounded) until no finalize job of these experiments is left to run. A finalize job can be
 * enqueued again while one runs (the job key then goes to a new job); the duplicate may fail and be
 * retried seconds later. Draining before the workers stop keeps such retries out of the next
 * round and out of the queue this bench leaves behind. Jobs that exhausted their attempts stay.
 */
async function drainFinalizeJobs(db: Db, experimentIds: string[]): Promise<void> {
  const keys = experimentIds.map(finalizeJobKey);
  const deadline = performance.now() + DRAIN_TIMEOUT_MS;
  for (;;) {
    const left = await runnableJobCount(db, keys);
    if (left === 0) return;
    if (performance.now() > deadline)
      return log(`WARNING: ${left} finalize job(s) of this bench still queued after ${DRAIN_TIMEOUT_MS / 1000} s; left in the queue`);
    await sleep(250);
  }
}

/** Linear interpolation between closest ranks (as PostgreSQL's percentile_cont). */
function percentile(sorted: number[], p: number): number {
  const rank = (sorted.length - 1) * p;
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}

try {
  await withReplayStack(log, async ({ db, serviceUrl }) => {
    // Jobs already in the queue (another experiment's) would be run by these workers too.
    const queued = await runnableJobCount(db);
    if (queued > 0)
      log(
        `WARNING: ${queued} runnable job(s) of other experiments are already queued; the workers will run them too, which skews the figures`,
      );
    const loadBefore = loadavg()[0]!;

    const grid = replayConfigSchema.parse({});
    const units = gridUnits(grid).length;
    const throughput: Array<{ workers: number; trialsPerSecond: number; table2Exact: boolean }> = [];
    const details: Array<{
      workers: number;
      wallMs: number;
      state: string;
      mismatches: string[];
      lateAttempts: number;
      environmentFailures: number;
    }> = [];

    for (const workers of WORKER_COUNTS) {
      await withWorkers(workers, serviceUrl, async () => {
        log(`${workers} worker process(es) ready: enqueueing the paper grid (${units} units)`);
        const enqueuedAt = Date.now();
        const experimentId = await createQueuedExperiment(db, grid);
        const final = await waitFinal(db, experimentId, GRID_TIMEOUT_MS, 100);
        const wallMs = final.finishedAt!.getTime() - enqueuedAt;
        const mismatches = table2Mismatches(await experimentSummary(db, experimentId), grid);
        throughput.push({ workers, trialsPerSecond: units / (wallMs / 1000), table2Exact: mismatches.length === 0 });
        // Attempts voided because the harness was late for its own delay (retried in fresh namespaces), and units left as environment failures.
        const [accounting] = await db.$queryRaw<Array<{ late: number; failed: number }>>`
          SELECT (SELECT count(*)::int FROM runs r, jsonb_array_elements(r.evidence->'serviceFailures') f
                   WHERE r.experiment_id = ${experimentId}::uuid AND r.role <> 'B' AND f->>'detail' LIKE ${`${HARNESS_LATE}%`}) AS late,
                 (SELECT count(*)::int FROM runs WHERE experiment_id = ${experimentId}::uuid AND role <> 'B' AND classification = 'environment_failure') AS failed`;
        details.push({
          workers,
          wallMs,
          state: final.state,
          mismatches,
          lateAttempts: accounting?.late ?? 0,
          environmentFailures: accounting?.failed ?? 0,
        });
        log(`${workers} worker(s): ${final.state} in ${(wallMs / 1000).toFixed(2)} s${final.error ? ` (${final.error})` : ""}`);
        await drainFinalizeJobs(db, [experimentId]);
      });
    }

    const tiny: ReplayConfig = replayConfigSchema.parse({
      delaysMs: [0],
      schedules: 1,
      repetitions: 1,
      finalityPolicies: ["snapshot"],
      separationConditions: ["namespaced"],
    });
    const latencies: number[] = [];
    let notCompleted = 0;
    const pickupIds: string[] = [];
    await withWorkers(1, serviceUrl, async () => {
      log(`pickup latency: ${PICKUPS} experiments of ${gridUnits(tiny).length} units, one at a time, one idle worker`);
      for (let i = 0; i < PICKUPS; i++) {
        const experimentId = await createQueuedExperiment(db, tiny);
        pickupIds.push(experimentId);
        const final = await waitFinal(db, experimentId, PICKUP_TIMEOUT_MS, 20);
        if (final.state !== "completed") notCompleted++;
        if (!final.startedAt) throw new Error(`experiment ${experimentId} ended ${final.state} without a started_at`);
        latencies.push(final.startedAt.getTime() - final.createdAt.getTime());
      }
      await drainFinalizeJobs(db, pickupIds);
    });
    const sorted = [...latencies].sort((a, b) => a - b);
    const result = {
      throughput,
      pickupLatencyMs: { median: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) },
    };

    console.log(
      `Throughput, paper grid of ${units} units (a trial = one unit: a finality trial or a separation pair), WORKER_CONCURRENCY=${WORKER_CONCURRENCY} per process`,
    );
    console.log("workers  wall (s)  trials/s  state      Table 2 exact  late attempts retried  units left as environment failures");
    for (const [i, t] of throughput.entries()) {
      const d = details[i]!;
      console.log(
        `${String(t.workers).padStart(7)}  ${(d.wallMs / 1000).toFixed(2).padStart(8)}  ${t.trialsPerSecond.toFixed(1).padStart(8)}  ${d.state.padEnd(9)}  ${String(t.table2Exact).padEnd(13)}  ${String(d.lateAttempts).padStart(21)}  ${String(d.environmentFailures).padStart(34)}`,
      );
      for (const problem of d.mismatches) console.log(`         mismatch: ${problem}`);
    }
    console.log(`Pickup latency, enqueue to job start (started_at - created_at), one idle worker, n=${latencies.length}:`);
    console.log(
      `  median ${result.pickupLatencyMs.median.toFixed(1)} ms, p99 ${result.pickupLatencyMs.p99.toFixed(1)} ms, min ${sorted[0]} ms, max ${sorted.at(-1)} ms${notCompleted ? ` (${notCompleted} experiment(s) not completed)` : ""}`,
    );
    console.log(
      `bench wall time ${((performance.now() - benchStart) / 1000).toFixed(1)} s; 1-min load average ${loadBefore.toFixed(2)} before the rounds, ${loadavg()[0]!.toFixed(2)} at the end (${availableParallelism()} cores)`,
    );
    if (values.json) writeFileSync(values.json, `${JSON.stringify(result, null, 2)}\n`);
  });
} catch (error) {
  // Every worker was stopped and the stack closed on the way out (finally blocks); say why and fail.
  log(aborted.signal.aborted ? (error as Error).message : `failed: ${(error as Error).stack ?? String(error)}`);
  process.exitCode = 1;
}

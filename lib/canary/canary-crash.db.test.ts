import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { spawnDelayedWriteService, type ServiceProcess } from "../delayed-write/spawn";
import { createCanaryExperiment } from "../experiments/create-canary-experiment";
import { createTestDatabase, type TestDatabase } from "../testing/database";
import { canaryConfigSchema, expectedCanaryResults } from "./config";
import { canaryResults } from "./canary-results-store";

// A worker process SIGKILLed in the middle of a canary experiment: another worker takes its jobs
// over (the heartbeat hands back a dead pool's locks) and the experiment completes with every
// (condition, trial, surface) stored exactly once. Correctness only; the polling budgets are generous.
let database: TestDatabase;
let service: ServiceProcess;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  [database, service] = await Promise.all([createTestDatabase(inject("embeddedAdminUrl")), spawnDelayedWriteService()]);
});
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await service?.stop();
  await database?.drop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `workers/replay-worker.ts` as its own process, resolved once it says it is ready. */
function startWorker(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", path.resolve("workers/replay-worker.ts")], {
    env: { ...process.env, DATABASE_URL: database.url, DELAYED_WRITE_URL: service.url, WORKER_CONCURRENCY: "1", HEALTH_PORT: "0" },
    stdio: ["ignore", "pipe", "ignore"],
  });
  children.add(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("worker not ready within 90 s")), 90_000);
    child.once("exit", (code) => reject(new Error(`worker exited (${code}) before it was ready`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line.includes('"event":"ready"')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
  });
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 120_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (performance.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms (last: ${JSON.stringify(value)})`);
    await sleep(50);
  }
}

it("loses no trial and stores none twice when a worker is killed mid-experiment", async () => {
  const config = canaryConfigSchema.parse({ trials: 30 });
  const experimentId = await createCanaryExperiment(database.db, config);
  const first = await startWorker();
  await until(
    "first stored results",
    () => database.db.canaryResult.count({ where: { experimentId } }),
    (n) => n > 0,
  );
  first.kill("SIGKILL");
  const stored = await database.db.canaryResult.count({ where: { experimentId } });
  expect(stored).toBeLessThan(expectedCanaryResults(config)); // killed mid-experiment, not after it

  await startWorker();
  const final = await until(
    "completion",
    () => database.db.experiment.findUniqueOrThrow({ where: { id: experimentId }, select: { state: true } }),
    (e) => e.state !== "queued" && e.state !== "running",
  );
  expect(final.state).toBe("completed");
  const [{ rows, trials, canaries }] = await database.db.$queryRaw<[{ rows: number; trials: number; canaries: number }]>`
    SELECT count(*)::int AS rows, count(DISTINCT (condition, trial))::int AS trials, count(DISTINCT canary)::int AS canaries
      FROM canary_results WHERE experiment_id = ${experimentId}::uuid`;
  expect({ rows, trials, canaries }).toEqual({ rows: expectedCanaryResults(config), trials: 90, canaries: 90 });
  expect((await canaryResults(database.db, experimentId))!.held).toEqual({ n: 270, N: 270 });
});

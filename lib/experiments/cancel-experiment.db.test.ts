import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { DelayedWriteClient } from "../delayed-write/delayed-write-client";
import { spawnDelayedWriteService, type ServiceProcess } from "../delayed-write/spawn";
import { runnableJobCount } from "../jobs/queue";
import { unitJobKey } from "../replay/run/jobs";
import { lockedExperimentJobCount } from "./experiment-jobs";
import { replayConfigSchema } from "../replay/rules/config";
import { gridUnits } from "../replay/rules/grid";
import { createTestDatabase, type TestDatabase } from "../testing/database";
import { cancelExperiment } from "./cancel-experiment";
import { createQueuedExperiment } from "./create-experiment";

// Cancellation against the real queue: jobs found by their keys in graphile-worker's public view.
let database: TestDatabase;
let service: ServiceProcess;
let client: DelayedWriteClient;

beforeAll(async () => {
  [database, service] = await Promise.all([createTestDatabase(inject("embeddedAdminUrl")), spawnDelayedWriteService()]);
  client = new DelayedWriteClient(service.url);
});
afterAll(async () => {
  await client?.close();
  await service?.stop();
  await database?.drop();
});

const config = replayConfigSchema.parse({ delaysMs: [0, 25], schedules: 1, repetitions: 2 });
const unitKeys = (experimentId: string) => gridUnits(config).map((_, index) => unitJobKey(experimentId, index));

it("fails every queued unit job of the experiment, and only its own", async () => {
  const [cancelled, other] = [await createQueuedExperiment(database.db, config), await createQueuedExperiment(database.db, config)];
  expect(await runnableJobCount(database.db, unitKeys(cancelled))).toBe(gridUnits(config).length);

  expect(await cancelExperiment(database.db, cancelled, client)).toEqual({ state: "cancelled", cancelledOperations: 0, quiescent: true });
  expect(await runnableJobCount(database.db, unitKeys(cancelled))).toBe(0);
  expect(await runnableJobCount(database.db, unitKeys(other))).toBe(gridUnits(config).length);
  // A finished or cancelled experiment is left as it is.
  expect(await cancelExperiment(database.db, cancelled, client)).toEqual({ state: "cancelled", cancelledOperations: 0, quiescent: true });
  // Leaves the queue empty for the next test, whose worker would otherwise take these jobs first.
  await cancelExperiment(database.db, other, client);
});

it("leaves the jobs a worker holds to that worker, and is not quiescent while it holds them", { timeout: 120_000 }, async () => {
  const experimentId = await createQueuedExperiment(database.db, config);
  const held = 2;
  const ghost = spawn(process.execPath, ["--import", "tsx", path.resolve("lib/testing/ghost-pool.ts"), database.url, String(held)], {
    stdio: "ignore",
  });
  const exited = new Promise((resolve) => ghost.once("exit", resolve));
  try {
    for (let waited = 0; (await lockedExperimentJobCount(database.db, experimentId)) < held; waited += 100) {
      if (waited > 60_000) throw new Error("the ghost pool did not take its jobs within 60 s");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await cancelExperiment(database.db, experimentId, client, 300)).toEqual({
      state: "cancelled",
      cancelledOperations: 0,
      quiescent: false,
    });
    expect(await lockedExperimentJobCount(database.db, experimentId)).toBe(held);
    expect(await runnableJobCount(database.db, unitKeys(experimentId))).toBe(held);
  } finally {
    ghost.kill("SIGKILL");
    await exited;
  }
});

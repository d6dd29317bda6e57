import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { DelayedWriteClient } from "../delayed-write/delayed-write-client";
import { spawnDelayedWriteService, type ServiceProcess } from "../delayed-write/spawn";
import { createCanaryExperiment } from "../experiments/create-canary-experiment";
import { experimentStatus } from "../experiments/progress";
import { runnableJobCount } from "../jobs/queue";
import { canaryJobKey } from "./jobs";
import { createTestDatabase, type TestDatabase } from "../testing/database";
import { startReplayWorker, type ReplayWorker } from "../worker/job-worker";
import { CANARY_SURFACES, canaryConfigSchema } from "./config";
import { loadShareContent } from "../share/resources";
import { canaryResults } from "./canary-results-store";
import { runCanaryTrialJob } from "./trial-job";

// The canary reset check as it runs in production: jobs in the PostgreSQL queue, a replay worker,
// the delayed-write service as its own process, every search over real HTTP.
let database: TestDatabase;
let service: ServiceProcess;
let client: DelayedWriteClient;
let worker: ReplayWorker;

beforeAll(async () => {
  [database, service] = await Promise.all([createTestDatabase(inject("embeddedAdminUrl")), spawnDelayedWriteService()]);
  client = new DelayedWriteClient(service.url);
  worker = await startReplayWorker({ databaseUrl: database.url, serviceUrl: service.url, concurrency: 4 });
});
afterAll(async () => {
  await worker?.stop();
  await client?.close();
  await service?.stop();
  await database?.drop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function waitForCompletion(experimentId: string) {
  for (let i = 0; i < 600; i++) {
    const status = await experimentStatus(database.db, experimentId);
    if (status && status.state !== "queued" && status.state !== "running") return status;
    await sleep(100);
  }
  throw new Error("the canary experiment did not finish within 60 s");
}
const rows = (experimentId: string) =>
  database.db.canaryResult.findMany({
    where: { experimentId },
    orderBy: [{ condition: "asc" }, { trial: "asc" }, { surface: "asc" }],
    select: { condition: true, trial: true, surface: true, canary: true, found: true },
  });

describe("the canary experiment through the worker", () => {
  const config = canaryConfigSchema.parse({ trials: 3 });
  let experimentId: string;

  it("finds A's canary on every surface under shared state, and nothing under namespacing or a verified reset", async () => {
    experimentId = await createCanaryExperiment(database.db, config);
    const status = await waitForCompletion(experimentId);
    expect(status).toMatchObject({ kind: "canary", state: "completed", progress: { done: 9, total: 9 } });

    const results = (await canaryResults(database.db, experimentId))!;
    const byCondition = (condition: string) =>
      results.surfaces.filter((s) => s.condition === condition).map((s) => [s.surface, `${s.found}/${s.trials}`, `${s.held}/${s.trials}`]);
    expect(byCondition("shared")).toEqual(CANARY_SURFACES.map((surface) => [surface, "3/3", "3/3"]));
    expect(byCondition("namespaced")).toEqual(CANARY_SURFACES.map((surface) => [surface, "0/3", "3/3"]));
    expect(byCondition("verified_reset")).toEqual(CANARY_SURFACES.map((surface) => [surface, "0/3", "3/3"]));
    expect(results.held).toEqual({ n: 27, N: 27 });

    // Each trial plants its own canary; the evidence is the service's own answer that carries it.
    const stored = await rows(experimentId);
    expect(new Set(stored.map((r) => r.canary)).size).toBe(9);
    const sharedValues = results.surfaces.find((s) => s.condition === "shared" && s.surface === "values")!;
    const sharedCanary = stored.find((r) => r.condition === "shared" && r.trial === 1)!.canary;
    expect(sharedValues.evidence).toMatchObject({
      matches: expect.arrayContaining([
        expect.objectContaining({ key: "notes", value: { canary: sharedCanary, plantedBy: "A", place: "shared_space" } }),
      ]),
    });
    const sharedPending = results.surfaces.find((s) => s.condition === "shared" && s.surface === "pending_operations")!;
    expect(sharedPending.evidence).toMatchObject({
      matches: [expect.objectContaining({ handle: expect.stringMatching(/^op_/), status: "pending" })],
    });
    // The verified reset cancelled the pending write, restored B's values and forgot the history, and says so.
    const reset = await database.db.canaryResult.findFirst({
      where: { experimentId, condition: "verified_reset" },
      select: { reset: true },
    });
    expect(reset?.reset).toMatchObject({
      verified: true,
      namespaces: [
        expect.objectContaining({ cancelled: [expect.objectContaining({ outcome: "cancelled" })], remainingOperations: 0 }),
        expect.anything(),
      ],
    });
    // A share link of the experiment carries these results, not the replay's summary it has none of.
    expect(await loadShareContent(database.db, "experiment", experimentId)).toMatchObject({
      kind: "canary_experiment",
      experiment: { id: experimentId, state: "completed" },
      canary: results,
    });
    // Teardown left nothing of the experiment pending on the service.
    expect((await client.operationsUnder(`bl/${experimentId}/`, "pending")).operations).toEqual([]);
  });

  it("a retried or repeated trial job stores nothing twice and keeps the first canary", async () => {
    const before = await rows(experimentId);
    const deps = { db: database.db, client, service: () => ({ url: service.url, timeOrigin: 0 }) };
    await runCanaryTrialJob(deps, { experimentId, condition: "shared", trial: 1 }, 2); // a retry after the commit
    await runCanaryTrialJob(deps, { experimentId, condition: "shared", trial: 1 }, 1); // the same first attempt twice
    expect(await rows(experimentId)).toEqual(before);
    expect(await runnableJobCount(database.db, [canaryJobKey({ experimentId, condition: "shared", trial: 1 })])).toBe(0);
  });
});

import { createServer } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DelayedWriteClient, ServiceFailure } from "../delayed-write/delayed-write-client";
import { createCanaryExperiment } from "../experiments/create-canary-experiment";
import { UNIT_MAX_ATTEMPTS } from "../replay/run/jobs";
import type { TestDatabase } from "../testing/database";
import { useTestDatabase } from "../testing/use-test-database";
import { canaryConfigSchema } from "./config";
import { runCanaryTrialJob } from "./trial-job";

// A canary trial whose service never answers: its job is retried, and its last attempt fails the
// experiment with the reason, so that the page stops showing it running (a replay unit instead
// stores such a run as an environment failure).
let database: TestDatabase;
useTestDatabase((d) => (database = d));

let client: DelayedWriteClient;
beforeAll(async () => {
  // A loopback port that was just free and is closed again: every request is refused at once.
  const port = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
  client = new DelayedWriteClient(`http://127.0.0.1:${port}`);
});
afterAll(async () => {
  await client?.close();
});

it("fails the experiment, naming the trial and why, when a trial's last attempt cannot reach the service", async () => {
  const experimentId = await createCanaryExperiment(database.db, canaryConfigSchema.parse({ conditions: ["shared"], trials: 2 }));
  const deps = { db: database.db, client, service: () => ({ url: client.baseUrl, timeOrigin: 0 }) };
  const state = async () =>
    database.db.experiment.findUniqueOrThrow({ where: { id: experimentId }, select: { state: true, error: true, finishedAt: true } });

  // An attempt with attempts left throws, for the queue to retry it; the experiment keeps running.
  await expect(runCanaryTrialJob(deps, { experimentId, condition: "shared", trial: 1 }, 1)).rejects.toBeInstanceOf(ServiceFailure);
  expect(await state()).toMatchObject({ state: "running", error: null, finishedAt: null });

  // The last attempt fails the experiment with the reason: no retry is left to complete it.
  await runCanaryTrialJob(deps, { experimentId, condition: "shared", trial: 1 }, UNIT_MAX_ATTEMPTS);
  const failed = await state();
  expect(failed).toMatchObject({ state: "failed", finishedAt: expect.any(Date) });
  expect(failed.error).toMatch(/canary trial shared #1 .*unreachable/);

  // The experiment's other trials do not run for a failed experiment.
  await runCanaryTrialJob(deps, { experimentId, condition: "shared", trial: 2 }, 1);
  expect(await database.db.canaryResult.count({ where: { experimentId } })).toBe(0);
});

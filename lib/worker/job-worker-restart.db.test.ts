import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../db/embedded";
import { createQueuedExperiment } from "../experiments/create-experiment";
import { expectedRunCount } from "../replay/rules/grid";
import { createTestDatabase, type TestDatabase } from "../testing/database";
import {
  expectExact,
  lockedJobs,
  paper,
  service,
  sleep,
  startWorker,
  useWorkerProcesses,
  waitForFinal,
  waitForProgress,
  waitForStatus,
} from "../testing/worker-processes";

// A replay worker process across a real PostgreSQL restart: it waits for the database and the experiment completes exactly.

useWorkerProcesses();
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

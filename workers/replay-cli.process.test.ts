import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { spawnDelayedWriteService, type ServiceProcess } from "../lib/delayed-write/spawn";
import { listExperiments } from "../lib/experiments/list-experiments";
import { replayConfigSchema } from "../lib/replay/rules/config";
import { expectedRunCount } from "../lib/replay/rules/grid";
import { createTestDatabase, type TestDatabase } from "../lib/testing/database";

// `npm run replay` killed mid-grid, as a process: what ran is kept, nothing is doubled, and the
// experiment ends interrupted, never running for good.

const GRID = ["--schedules", "1", "--delays", "0,250", "--repetitions", "2", "--concurrency", "2"];
const total = expectedRunCount(replayConfigSchema.parse({ schedules: 1, delaysMs: [0, 250], repetitions: 2 }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let database: TestDatabase;
let service: ServiceProcess;

beforeAll(async () => {
  [database, service] = await Promise.all([createTestDatabase(inject("embeddedAdminUrl")), spawnDelayedWriteService()]);
});
afterAll(async () => {
  await service?.stop();
  await database?.drop();
});

/** Starts the replay CLI on this test's database and service; resolves once it has stored some runs of its experiment. */
async function replayUntilSomeRunsStored() {
  const before = new Set((await database.db.experiment.findMany({ select: { id: true } })).map((e) => e.id));
  const child = spawn(process.execPath, ["--import", "tsx", "workers/replay-cli.ts", ...GRID], {
    env: { ...process.env, DATABASE_URL: database.url, DELAYED_WRITE_URL: service.url },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  // Generous: the CLI checks migrations and warms the service up first, slow on a loaded machine.
  const deadline = performance.now() + 180_000;
  for (;;) {
    if (performance.now() > deadline || child.exitCode !== null) {
      child.kill("SIGKILL");
      throw new Error(`no run stored mid-grid within 180 s:\n${stderr}`);
    }
    const experiment = await database.db.experiment.findFirst({ where: { id: { notIn: [...before] } }, select: { id: true } });
    if (experiment && (await database.db.run.count({ where: { experimentId: experiment.id } })) > 0)
      return { child, exited, experimentId: experiment.id };
    await sleep(50);
  }
}

async function storedRuns(experimentId: string) {
  const [{ runs, keys }] = await database.db.$queryRaw<[{ runs: number; keys: number }]>`
    SELECT count(*)::int AS runs, count(DISTINCT (condition, schedule_id, delay_ms, repetition, role))::int AS keys FROM runs WHERE experiment_id = ${experimentId}::uuid`;
  return { runs, keys };
}

const stateOf = async (experimentId: string) =>
  await database.db.experiment.findUniqueOrThrow({ where: { id: experimentId }, select: { state: true, error: true } });

describe("npm run replay interrupted mid-grid", () => {
  it(
    "SIGKILL: the stored runs are kept, none doubled, and the next listing marks the experiment interrupted",
    { timeout: 300_000 },
    async () => {
      const { child, exited, experimentId } = await replayUntilSomeRunsStored();
      // While its process lives, the listing leaves it running.
      await listExperiments(database.db, { limit: 50 });
      expect((await stateOf(experimentId)).state).toBe("running");

      child.kill("SIGKILL");
      expect(await exited).toEqual({ code: null, signal: "SIGKILL" });
      const atKill = await storedRuns(experimentId);
      expect(atKill.runs).toBeGreaterThan(0);
      expect(atKill.runs).toBeLessThan(total);
      expect(atKill.keys).toBe(atKill.runs);
      // Nothing could mark it: a killed process runs no handler.
      expect((await stateOf(experimentId)).state).toBe("running");

      const listed = await listExperiments(database.db, { limit: 50 });
      expect(listed.experiments.find((e) => e.id === experimentId)).toMatchObject({ state: "interrupted", storedRuns: atKill.runs });
      expect((await stateOf(experimentId)).error).toMatch(/replay process \(pid \d+ on .+\) stopped before the grid finished/);
      expect(await storedRuns(experimentId)).toEqual(atKill);
    },
  );

  it("SIGINT: the replay stores what it batched, marks the experiment interrupted itself and exits 130", { timeout: 300_000 }, async () => {
    const { child, exited, experimentId } = await replayUntilSomeRunsStored();
    child.kill("SIGINT");
    expect(await exited).toEqual({ code: 130, signal: null });
    expect(await stateOf(experimentId)).toEqual({ state: "interrupted", error: "SIGINT before the grid finished" });
    const { runs, keys } = await storedRuns(experimentId);
    expect(runs).toBeGreaterThan(0);
    expect(runs).toBeLessThan(total);
    expect(keys).toBe(runs);
  });
});

import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { spawnDelayedWriteService, type ServiceProcess } from "../../delayed-write/spawn";
import { createTestDatabase, type TestDatabase } from "../../testing/database";
import { replayConfigSchema } from "../rules/config";
import { table2Mismatches } from "../rules/expected-table2";
import { replayExperiment } from "./run-experiment";
import type { ReplaySummary } from "../rules/summary-schema";

// The full paper grid, for real: a delayed-write service process over HTTP and a real PostgreSQL.
const paper = replayConfigSchema.parse({});
let service: ServiceProcess;

beforeAll(async () => {
  service = await spawnDelayedWriteService();
});
afterAll(async () => {
  await service?.stop();
});

const counts = (s: ReplaySummary) => ({
  finality: s.finality,
  separation: s.separation,
  classifications: s.classifications,
  checks: s.checks.map((c) => [c.name, c.passed]),
});

async function expectStoredGrid(database: TestDatabase, summary: ReplaySummary) {
  expect(table2Mismatches(summary, paper)).toEqual([]);
  expect(summary.checks.length).toBeGreaterThanOrEqual(12);
  expect(summary.checks.filter((c) => !c.passed)).toEqual([]);
  expect(summary.classifications).toEqual({
    completed: 3600,
    agent_failure: 0,
    protocol_stop: 0,
    environment_failure: 0,
    missing_evidence: 0,
  });
  const experiment = await database.db.experiment.findUniqueOrThrow({ where: { id: summary.experimentId } });
  expect(experiment.state).toBe("completed");
  expect(await database.db.run.count({ where: { experimentId: summary.experimentId } })).toBe(3600);
  // one open effect per scheduled write: 1200 finality trials + A of every pair but no-write
  expect(await database.db.openEffect.count({ where: { experimentId: summary.experimentId } })).toBe(1200 + 5 * 200);
  expect(await database.db.openEffect.count({ where: { experimentId: summary.experimentId, terminalStatus: "unresolved" } })).toBe(0);
  // the snapshot runs at nonzero delay were scored before their operation was terminal: never "final at scoring"
  expect(
    await database.db.run.count({
      where: { experimentId: summary.experimentId, condition: "snapshot", delayMs: { gt: 0 }, finalAtScoring: true },
    }),
  ).toBe(0);
  for (const d of summary.delays.filter((row) => row.nominalMs > 0)) expect(d.medianMs).toBeGreaterThanOrEqual(d.nominalMs);
}

describe("the paper grid on the embedded PostgreSQL", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(inject("embeddedAdminUrl"));
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("reproduces Table 2 exactly, three times in a row with identical counts", async () => {
    const first = await replayExperiment(database.db, paper, service.url);
    await expectStoredGrid(database, first);
    const second = await replayExperiment(database.db, paper, service.url);
    const third = await replayExperiment(database.db, paper, service.url);
    expect(counts(second)).toEqual(counts(first));
    expect(counts(third)).toEqual(counts(first));
    expect(new Set([first.experimentId, second.experimentId, third.experimentId]).size).toBe(3);
    expect(await database.db.run.count()).toBe(3 * 3600);
  });
});

describe.runIf(inject("serverAdminUrl"))("the paper grid on the PostgreSQL server at DATABASE_URL", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(inject("serverAdminUrl")!);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("reproduces Table 2 exactly", async () => {
    await expectStoredGrid(database, await replayExperiment(database.db, paper, service.url));
  });
});

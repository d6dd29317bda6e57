import { randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { createPrisma } from "../../db/prisma";
import type { ReplayUnit } from "../../replay/rules/grid";
import { saveUnitResults } from "../../replay/store/persist";
import { experimentSummary, interpolate } from "../../replay/store/summary";
import { databaseBeforeMigration } from "../../testing/database";
import { seededRandom } from "../../testing/seeded-random";
import { referenceExperimentSummary } from "../../testing/summary-reference";
import { loadSyntheticExperiment } from "../../testing/synthetic-runs";
import { createExperiment, database, db, gridUnitsOf, stored, unitResult, useRunSummaryDatabase } from "../../testing/run-summary-fixtures";

// run_summary kept in step with the runs: its triggers refuse a summary out of step, its migration
// summarises the runs already stored, and the delay percentiles interpolate as the reference does.

useRunSummaryDatabase();
describe("run_summary triggers", () => {
  it("fail the writer's statement when the summary is out of step with the runs", async () => {
    const experimentId = await createExperiment({ delaysMs: [25], schedules: 1, repetitions: 1 });
    const unit: ReplayUnit = { test: "separation", trace: 0, condition: "shared", scheduleId: 1, delayMs: 25, repetition: 1 };
    // Stored with the triggers off (replica mode): the summary never saw these runs.
    const direct = createPrisma(database.url, 1);
    try {
      await direct.$executeRaw`SET session_replication_role = replica`; // one connection: the setting holds for what follows
      await saveUnitResults(direct, stored(experimentId, [unitResult(unit, seededRandom(6))]));
    } finally {
      await direct.$disconnect();
    }
    expect(await db.run.count({ where: { experimentId } })).toBe(2);
    await expect(db.run.deleteMany({ where: { experimentId } })).rejects.toThrow(/out of step with runs/);
    expect(await db.run.count({ where: { experimentId } })).toBe(2);
  });
});

describe("migration run_summary", () => {
  it("summarises the runs already stored when it is applied", async () => {
    // A database migrated up to the migration before run_summary, with runs in it; then run_summary.
    const migrating = await databaseBeforeMigration(inject("embeddedAdminUrl"), "run_summary");
    const client = migrating.client;
    const older = createPrisma(migrating.url);
    try {
      const grid = { delaysMs: [0, 25], schedules: 2, repetitions: 2 };
      // In SQL: Prisma's insert names every column with a default, and later migrations add some.
      const insertExperiment = async (state: string) => {
        const id = randomUUID();
        await client.query("INSERT INTO experiments (id, state, config) VALUES ($1, $2, $3)", [id, state, JSON.stringify(grid)]);
        return id;
      };
      const ids = [
        (await loadSyntheticExperiment(older, grid, { environmentFailureEvery: 5, protocolStopEvery: 3 })).experimentId,
        await insertExperiment("queued"),
      ];
      const withPairs = await insertExperiment("running");
      const rand = seededRandom(7);
      await saveUnitResults(
        older,
        stored(
          withPairs,
          gridUnitsOf(grid).map((unit) => unitResult(unit, rand)),
        ),
      );
      ids.push(withPairs);
      const before = await Promise.all(ids.map((id) => referenceExperimentSummary(older, id)));

      await migrating.applyRest();
      for (const [i, id] of ids.entries()) expect(await experimentSummary(older, id)).toStrictEqual(before[i]);
      // And the triggers are in place: a new unit is counted.
      await saveUnitResults(
        older,
        stored(withPairs, [
          unitResult({ test: "separation", trace: 0, condition: "grouped", scheduleId: 9, delayMs: 25, repetition: 1 }, rand),
        ]),
      );
      expect(await experimentSummary(older, withPairs)).toStrictEqual(await referenceExperimentSummary(older, withPairs));
    } finally {
      await older.$disconnect();
      await migrating.drop();
    }
  });
});

describe("interpolate", () => {
  it("is percentile_cont's formula", () => {
    expect(interpolate([5], 3, 3, 3)).toBe(5);
    expect(interpolate([1, 3], 0.5, 0, 1)).toBe(2);
    expect(interpolate([0.1, 0.7], 4.95, 4, 5)).toBe(0.1 + (4.95 - 4) * (0.7 - 0.1));
    expect(() => interpolate([1], 0.5, 0, 1)).toThrow(/missing/);
  });
});

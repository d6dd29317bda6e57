import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createPrisma } from "../../db/prisma";
import type { ReplayUnit } from "../../replay/rules/grid";
import { saveUnitResults } from "../../replay/store/persist";
import { experimentSummary } from "../../replay/store/summary";
import { seededRandom } from "../../testing/seeded-random";
import { loadSyntheticExperiment } from "../../testing/synthetic-runs";
import {
  createExperiment,
  database,
  db,
  expectExact,
  gridUnitsOf,
  stored,
  summaryRows,
  unitResult,
  useRunSummaryDatabase,
} from "../../testing/run-summary-fixtures";

// The experiment summary read from run_summary_* (kept by triggers on runs) against the reference:
// the same summary aggregated from the runs themselves (summary-reference.ts, the queries it replaced).
// Every comparison is of the whole summary, byte for byte as JSON, so Table 2, the measured-delay
// percentiles and the run accounting must all be exact. Triggers, migration, interpolation: run-summary-triggers.db.test.ts.

useRunSummaryDatabase();

describe("experimentSummary from run_summary_*", () => {
  it("equals the reference on every classification and label mix, in one statement", async () => {
    const grid = { delaysMs: [0, 25, 100, 250], schedules: 3, repetitions: 4 };
    const experimentId = await createExperiment(grid);
    const rand = seededRandom(1);
    const results = gridUnitsOf(grid).map((unit) => unitResult(unit, rand));
    expect(await saveUnitResults(db, stored(experimentId, results))).toEqual(results.map(() => "stored"));
    const summary = await expectExact(experimentId);
    // The fixture does cover what it claims to.
    expect(Object.values(summary.classifications).every((n) => n > 0)).toBe(true);
    expect(summary.finality).toHaveLength(6);
    expect(summary.separation).toHaveLength(6);
    expect(summary.separation.find((s) => s.condition === "shared")!.exposures).toBeGreaterThan(0);
    expect(summary.delays.map((d) => d.nominalMs)).toEqual([0, 25, 100, 250]);
    expect(await db.run.count({ where: { experimentId, measuredDelayMs: null } })).toBeGreaterThan(0);
  });

  it("stays exact as runs arrive in batches, through saveUnitResults, retries and concurrent writers", async () => {
    const grid = { delaysMs: [0, 25], schedules: 2, repetitions: 6 };
    const experimentId = await createExperiment(grid);
    const rand = seededRandom(2);
    const results = gridUnitsOf(grid).map((unit) => unitResult(unit, rand));
    const sizes = [1, 2, 7, 30, 50];
    let next = 0;
    for (const size of sizes) {
      await saveUnitResults(db, stored(experimentId, results.slice(next, next + size)));
      next += size;
      await expectExact(experimentId);
    }
    // A retried batch: one unit is already stored, so the batch is rolled back (its trigger work too)
    // and each unit stored alone; the stored one is kept as it was.
    const retried = [results[0]!, ...results.slice(next, next + 5)];
    expect(await saveUnitResults(db, stored(experimentId, retried))).toEqual([
      "already_stored",
      "stored",
      "stored",
      "stored",
      "stored",
      "stored",
    ]);
    next += 5;
    await expectExact(experimentId);
    // Concurrent writers (separate transactions on separate connections) of the same experiment.
    const rest = results.slice(next);
    const batches = Array.from({ length: 6 }, (_, i) => rest.filter((_, j) => j % 6 === i));
    await Promise.all(batches.map((batch) => saveUnitResults(db, stored(experimentId, batch))));
    expect(await db.run.count({ where: { experimentId } })).toBe(results.reduce((n, r) => n + r.runs.length, 0));
    await expectExact(experimentId);
  });

  it("computes percentile_cont exactly for every count of measured delays, ties included", async () => {
    const experimentId = await createExperiment({ delaysMs: [7], schedules: 1, repetitions: 100 });
    const rand = seededRandom(3);
    for (let repetition = 1; repetition <= 45; repetition++) {
      const unit: ReplayUnit = { test: "finality", trace: 0, condition: "sync_snapshot", scheduleId: 1, delayMs: 7, repetition };
      const result = unitResult(unit, rand);
      // Every fifth value repeats an earlier one exactly.
      if (repetition % 5 === 0) result.runs[0]!.measuredDelayMs = 7.125;
      else if (result.runs[0]!.measuredDelayMs === null) result.runs[0]!.measuredDelayMs = 7 + rand();
      await saveUnitResults(db, stored(experimentId, [result]));
      const summary = await expectExact(experimentId);
      expect(summary.delays[0]!.n).toBe(repetition);
    }
  });

  it("equals the reference for an experiment with no runs", async () => {
    const experimentId = await createExperiment({ delaysMs: [0, 25], schedules: 1, repetitions: 1 });
    const summary = await expectExact(experimentId);
    expect(summary).toMatchObject({ finality: [], separation: [], delays: [], classifications: { completed: 0, environment_failure: 0 } });
    expect(summary.checks).toHaveLength(2);
  });

  it("stays exact for INSERT … SELECT and COPY writers", async () => {
    const grid = { delaysMs: [0, 25, 100], schedules: 2, repetitions: 3 };
    const loaded = await loadSyntheticExperiment(db, grid, { environmentFailureEvery: 7, protocolStopEvery: 11 });
    expect(loaded.runs).toBe(2 * 3 * 3 * 18);
    const summary = await expectExact(loaded.experimentId);
    expect(summary.classifications.environment_failure).toBeGreaterThan(0);
    expect(summary.classifications.protocol_stop).toBeGreaterThan(0);

    // COPY FROM: the loaded runs, written out and copied into another experiment by the server.
    const copyId = await createExperiment(grid);
    const file = `/tmp/bl-run-summary-${randomUUID()}.copy`;
    try {
      await db.$executeRawUnsafe(
        `COPY (SELECT gen_random_uuid(), '${copyId}'::uuid, test, condition, task_id, group_id, schedule_id, delay_ms, repetition, role, namespace, key,
                      endpoint_label, terminal_label, recorded_label, final_at_scoring, score, measured_delay_ms, exposure, classification, inherited_state,
                      started_at_ms, endpoint_at_ms, scored_at_ms, ended_at_ms, evidence, created_at
                 FROM runs WHERE experiment_id = '${loaded.experimentId}'::uuid) TO '${file}'`,
      );
      expect(await db.$executeRawUnsafe(`COPY runs FROM '${file}'`)).toBe(loaded.runs);
    } finally {
      rmSync(file, { force: true });
    }
    const copied = await expectExact(copyId);
    const counts = ({ finality, separation, delays, classifications }: typeof summary) => ({
      finality,
      separation,
      delays,
      classifications,
    });
    expect(counts(copied)).toStrictEqual(counts(summary));
  });

  it("stays exact when runs are updated or deleted, and is gone with its experiment", async () => {
    const grid = { delaysMs: [0, 25], schedules: 2, repetitions: 3 };
    const experimentId = await createExperiment(grid);
    const otherId = await createExperiment(grid);
    const rand = seededRandom(4);
    await saveUnitResults(
      db,
      stored(
        experimentId,
        gridUnitsOf(grid).map((unit) => unitResult(unit, rand)),
      ),
    );
    await saveUnitResults(
      db,
      stored(
        otherId,
        gridUnitsOf(grid).map((unit) => unitResult(unit, rand)),
      ),
    );
    const other = await expectExact(otherId);

    // Re-scored runs (as the share-links test does), moved measured delays, a changed classification.
    await db.run.updateMany({
      where: { experimentId, condition: "snapshot", delayMs: 25 },
      data: { recordedLabel: "unresolved", score: null },
    });
    await db.$executeRaw`UPDATE runs SET measured_delay_ms = measured_delay_ms + 100 WHERE experiment_id = ${experimentId}::uuid AND repetition = 2`;
    await db.$executeRaw`UPDATE runs SET classification = 'missing_evidence', group_id = 'moved' WHERE experiment_id = ${experimentId}::uuid AND condition = 'shared' AND repetition = 1`;
    await expectExact(experimentId);

    // Deleted runs: a whole condition, then one run of a pair (its group still counts).
    await db.run.deleteMany({ where: { experimentId, condition: "grouped" } });
    await db.run.deleteMany({ where: { experimentId, condition: "namespaced", role: "A", repetition: 1 } });
    const summary = await expectExact(experimentId);
    expect(summary.separation.map((s) => s.condition)).not.toContain("grouped");
    expect(await summaryRows("run_summary_cells", experimentId, "AND condition = 'grouped'")).toBe(0);

    await db.run.deleteMany({ where: { experimentId } });
    await expectExact(experimentId);
    expect(await summaryRows("run_summary_cells", experimentId)).toBe(0);
    expect(await summaryRows("run_summary_groups", experimentId)).toBe(0);
    expect(await summaryRows("run_summary_group_counts", experimentId)).toBe(0);

    expect(other.separation).toHaveLength(6);
    await db.experiment.delete({ where: { id: otherId } }); // cascades to its runs and its summary rows
    for (const table of ["run_summary_cells", "run_summary_groups", "run_summary_group_counts"] as const)
      expect(await summaryRows(table, otherId)).toBe(0);
  });

  it("reads counts from the summary tables, not from the runs", async () => {
    const experimentId = await createExperiment({ delaysMs: [25], schedules: 1, repetitions: 1 });
    const rand = seededRandom(5);
    await saveUnitResults(
      db,
      stored(experimentId, [
        unitResult({ test: "finality", trace: 0, condition: "snapshot", scheduleId: 1, delayMs: 25, repetition: 1 }, rand),
      ]),
    );
    const before = await expectExact(experimentId);
    // A writer that bypasses the triggers (replica mode) leaves the summary as it was: proof of where it reads.
    const direct = createPrisma(database.url, 1);
    try {
      await direct.$transaction([
        direct.$executeRaw`SET LOCAL session_replication_role = replica`,
        direct.$executeRaw`UPDATE runs SET recorded_label = 'success' WHERE experiment_id = ${experimentId}::uuid AND recorded_label <> 'success'`,
      ]);
    } finally {
      await direct.$disconnect();
    }
    expect((await experimentSummary(db, experimentId)).finality).toStrictEqual(before.finality);
  });
});

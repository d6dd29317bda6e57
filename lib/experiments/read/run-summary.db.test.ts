// The experiment summary read from run_summary_* (kept by triggers on runs) against the reference:
// the same summary aggregated from the runs themselves (summary-reference.ts, the queries it replaced).
// Every comparison is of the whole summary, byte for byte as JSON, so Table 2, the measured-delay
// percentiles and the run accounting must all be exact.
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Db } from "../../db/prisma";
import { createPrisma } from "../../db/prisma";
import { experimentStatus } from "../progress";
import type { Prisma } from "../../generated/prisma/client";
import {
  FINALITY_POLICIES,
  SEPARATION_CONDITIONS,
  replayConfigSchema,
  type FinalityPolicy,
  type SeparationCondition,
} from "../../replay/rules/config";
import type { ReplayUnit } from "../../replay/rules/grid";
import { unitGroupId } from "../../replay/rules/grid";
import { saveUnitResults, type StoredUnit } from "../../replay/store/persist";
import type { RunRecord, UnitResult } from "../../replay/rules/records";
import { inheritedStateFor } from "../../replay/rules/separation-rules";
import { experimentSummary, interpolate } from "../../replay/store/summary";
import { createTestDatabase, databaseBeforeMigration, type TestDatabase } from "../../testing/database";
import { seededRandom } from "../../testing/seeded-random";
import { finalityByDelay, unresolvedRuns } from "./experiment-aggregates";
import { referenceExperimentSummary } from "../../testing/summary-reference";
import { loadSyntheticExperiment } from "../../testing/synthetic-runs";

let database: TestDatabase;
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  db = database.db;
});
afterAll(async () => {
  await database?.drop();
});

async function createExperiment(grid: { delaysMs: number[]; schedules: number; repetitions: number }): Promise<string> {
  const config = replayConfigSchema.parse(grid);
  const experiment = await db.experiment.create({
    data: { state: "running", config: config as unknown as Prisma.InputJsonValue, wallMs: 1234.5 },
  });
  await db.implementationCheck.createMany({
    data: ["never_applied_early", "every_run_recorded_once"].map((name, position) => ({
      experimentId: experiment.id,
      position,
      name,
      passed: position === 0,
      evidence: `${position}/1`,
    })),
  });
  return experiment.id;
}

/**
 * The fast summary equals the reference exactly (same JSON, same numbers to the last bit), and so do
 * the experiment page's other aggregates read from run_summary_cells, against the queries on runs
 * they replaced.
 */
async function expectExact(experimentId: string): Promise<Awaited<ReturnType<typeof experimentSummary>>> {
  const [fast, reference] = await Promise.all([experimentSummary(db, experimentId), referenceExperimentSummary(db, experimentId)]);
  expect(fast).toStrictEqual(reference);
  expect(JSON.stringify(fast)).toBe(JSON.stringify(reference));

  const byDelay = await db.$queryRaw<Array<{ policy: string; delay_ms: number; trials: bigint; successes: bigint; disagreements: bigint }>>`
    SELECT condition AS policy, delay_ms,
           count(*) AS trials,
           count(*) FILTER (WHERE recorded_label = 'success') AS successes,
           count(*) FILTER (WHERE endpoint_label IS NOT NULL AND terminal_label IS NOT NULL AND endpoint_label <> terminal_label) AS disagreements
      FROM runs WHERE experiment_id = ${experimentId}::uuid AND test = 'finality'
     GROUP BY condition, delay_ms ORDER BY condition, delay_ms`;
  expect(await finalityByDelay(db, experimentId)).toStrictEqual(
    byDelay.map((r) => ({
      policy: r.policy,
      delayMs: r.delay_ms,
      trials: Number(r.trials),
      successes: Number(r.successes),
      disagreements: Number(r.disagreements),
    })),
  );
  const [unresolved] = await db.$queryRaw<Array<{ n: number }>>`
    SELECT count(*)::int AS n FROM runs WHERE experiment_id = ${experimentId}::uuid AND terminal_label = 'unresolved'`;
  expect(await unresolvedRuns(db, experimentId)).toBe(unresolved!.n);
  const stored = await db.$queryRaw<Array<{ condition: string; n: bigint }>>`
    SELECT condition, count(*) AS n FROM runs WHERE experiment_id = ${experimentId}::uuid GROUP BY condition`;
  const status = await experimentStatus(db, experimentId);
  expect(status!.conditions.map((c) => [c.condition, c.done])).toStrictEqual(
    status!.conditions.map((c) => [c.condition, Number(stored.find((s) => s.condition === c.condition)?.n ?? 0)]),
  );
  return fast;
}

/** Rows of a run_summary_* table for an experiment (raw SQL: the app never reads them through the model API). */
async function summaryRows(
  table: "run_summary_cells" | "run_summary_groups" | "run_summary_group_counts",
  experimentId: string,
  and = "",
): Promise<number> {
  const [row] = await db.$queryRawUnsafe<Array<{ n: number }>>(
    `SELECT count(*)::int AS n FROM ${table} WHERE experiment_id = $1::uuid ${and}`,
    experimentId,
  );
  return row!.n;
}

type Outcome = "completed" | "agent_failure" | "protocol_stop" | "environment_failure" | "missing_evidence";

/**
 * One unit's runs as the replay records them (finality-trial.ts, separation-pair.ts, run-grid.ts),
 * with an outcome drawn so that every classification, label and null appears: environment and
 * agent failures (no labels, no measured delay), protocol stops (unresolved terminal label),
 * missing evidence, exposures of B under shared and grouped at nonzero delays. Measured delays
 * repeat now and then (ties) and are rounded coarsely for some units.
 */
function unitResult(unit: ReplayUnit, rand: () => number): UnitResult {
  const draw = rand();
  const outcome: Outcome =
    draw < 0.05
      ? "environment_failure"
      : draw < 0.08
        ? "agent_failure"
        : draw < 0.12
          ? "protocol_stop"
          : draw < 0.15
            ? "missing_evidence"
            : "completed";
  const late = unit.delayMs > 0;
  const overhead =
    rand() < 0.1 ? 0.25 : rand() < 0.3 ? Math.round(rand() * 100) / 1000 : 0.002 + rand() * 0.01 + (rand() < 0.05 ? rand() * 4 : 0);
  const measured = unit.delayMs + overhead;
  const groupId = unitGroupId(unit);
  const base = {
    test: unit.test,
    condition: unit.condition,
    taskId: "banking/user_task_3",
    groupId,
    scheduleId: unit.scheduleId,
    delayMs: unit.delayMs,
    repetition: unit.repetition,
    namespace: `bl/test/${groupId}`,
    key: "banking.send_money",
    startedAtMs: 1000 + rand() * 1000,
    endpointAtMs: 1001,
    scoredAtMs: 1002,
    endedAtMs: 1003,
    evidence: { kind: "environment_failure" as const, serviceFailures: [] },
  };
  const failed = outcome === "environment_failure" || outcome === "agent_failure";
  const roles = unit.test === "finality" ? (["single"] as const) : (["A", "B"] as const);
  if (failed) {
    return {
      unit,
      effects: [],
      runs: roles.map((role) => ({
        ...base,
        role,
        endpointLabel: null,
        terminalLabel: "unresolved",
        recordedLabel: "unresolved",
        finalAtScoring: false,
        score: null,
        measuredDelayMs: null,
        exposure: null,
        classification: outcome,
        inheritedState: inheritedStateFor(unit.test === "finality" ? "finality" : unit.condition, role),
        endpointAtMs: null,
        scoredAtMs: null,
      })),
    };
  }
  const score = (label: RunRecord["recordedLabel"]) => (label === "success" ? 1 : label === "failure" ? 0 : null);
  const stopped = outcome === "protocol_stop";
  const classification = outcome;
  if (unit.test === "finality") {
    const policy: FinalityPolicy = unit.condition;
    const sync = policy.startsWith("sync_");
    const endpoint = late && !sync ? "failure" : "success";
    const cancelled = policy === "verified_cancellation" && late;
    const terminal = stopped ? "unresolved" : cancelled ? "failure" : "success";
    const recorded = policy === "snapshot" || policy === "sync_snapshot" ? endpoint : terminal;
    return {
      unit,
      effects: [],
      runs: [
        {
          ...base,
          role: "single",
          endpointLabel: endpoint,
          terminalLabel: terminal,
          recordedLabel: recorded,
          finalAtScoring: !stopped && !(policy === "snapshot" && late),
          score: score(recorded),
          measuredDelayMs: stopped || cancelled ? null : measured,
          exposure: null,
          classification,
          inheritedState: "none",
        },
      ],
    };
  }
  const condition: SeparationCondition = unit.condition;
  const writes = condition !== "no_write";
  const exposed = late && (condition === "shared" || condition === "grouped");
  const bLabel = stopped ? "unresolved" : exposed ? "failure" : "success";
  const runA: RunRecord = {
    ...base,
    role: "A",
    endpointLabel: writes ? (late && condition !== "verified_reset" ? "failure" : "success") : null,
    terminalLabel: writes ? (stopped ? "unresolved" : "success") : null,
    recordedLabel: writes ? (stopped ? "unresolved" : "success") : null,
    finalAtScoring: writes ? !stopped : null,
    score: writes && !stopped ? 1 : null,
    measuredDelayMs: writes && !stopped ? measured : null,
    exposure: null,
    classification,
    inheritedState: "none",
  };
  const runB: RunRecord = {
    ...base,
    role: "B",
    endpointLabel: "success",
    terminalLabel: bLabel,
    recordedLabel: bLabel,
    finalAtScoring: true,
    score: score(bLabel),
    measuredDelayMs: null,
    exposure: exposed,
    classification,
    inheritedState: inheritedStateFor(condition, "B"),
  };
  return { unit, effects: [], runs: [runA, runB] };
}

function gridUnitsOf(grid: { delaysMs: number[]; schedules: number; repetitions: number }, repetitionsFrom = 1): ReplayUnit[] {
  const units: ReplayUnit[] = [];
  for (let repetition = repetitionsFrom; repetition <= grid.repetitions; repetition++) {
    for (let scheduleId = 1; scheduleId <= grid.schedules; scheduleId++) {
      for (const delayMs of grid.delaysMs) {
        for (const condition of FINALITY_POLICIES) units.push({ test: "finality", trace: 0, condition, scheduleId, delayMs, repetition });
        for (const condition of SEPARATION_CONDITIONS)
          units.push({ test: "separation", trace: 0, condition, scheduleId, delayMs, repetition });
      }
    }
  }
  return units;
}

const stored = (experimentId: string, results: UnitResult[]): StoredUnit[] => results.map((result) => ({ experimentId, result }));

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

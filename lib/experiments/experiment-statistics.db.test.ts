import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadSyntheticExperiment } from "../testing/synthetic-runs";
import { createTestDatabase, type TestDatabase } from "../testing/database";
import { cachedExperimentStatistics, experimentStatistics } from "./experiment-statistics";
import type { ExperimentStatistics } from "./statistics-schema";
import { wilsonForProportion } from "../statistics/wilson";

// The statistics GET /api/v1/experiments/{id}/statistics answers (the route returns this object
// as it is), on the paper's grid stored as the replay stores it: 5 schedules × delays
// {0, 25, 100, 250} ms × 10 repetitions, so 200 trials or pairs per policy or condition, 150 of them
// at nonzero delay.
let database: TestDatabase;
let paper: ExperimentStatistics;
beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  const { experimentId } = await loadSyntheticExperiment(
    database.db,
    { delaysMs: [0, 25, 100, 250], schedules: 5, repetitions: 10 },
    { environmentFailureEvery: 0, protocolStopEvery: 0, openEffects: false },
  );
  paper = (await cachedExperimentStatistics(database.db, experimentId))!;
});
afterAll(async () => {
  await database?.drop();
});

const rate = (name: string) => {
  const found = paper.rates.find((r) => r.name === name);
  if (!found) throw new Error(`no rate ${name}: ${paper.rates.map((r) => r.name).join("; ")}`);
  return found;
};
const condition = (name: string) => paper.conditions.find((c) => c.condition === name)!;

describe("the paper experiment's statistics", () => {
  it("give each finality policy's success rate at nonzero delays with its Wilson interval", () => {
    // 0/150: [0, z²/(150 + z²)] = [0, 3.841459/153.841459] = [0, 0.024970]
    expect(rate("snapshot: success rate at nonzero delays")).toMatchObject({ n: 0, N: 150, wilson95: [0, expect.closeTo(0.02497, 5)] });
    expect(rate("snapshot: success rate at nonzero delays").population).toBe(
      "finality trials at nonzero delays, less what rule version 1 excludes (environment failure: 0)",
    );
    // 150/150: [150/153.841459, 1] = [0.975030, 1]
    expect(rate("reconciliation: success rate at nonzero delays")).toMatchObject({
      n: 150,
      N: 150,
      wilson95: [expect.closeTo(0.97503, 5), 1],
    });
    expect(rate("verified cancellation: success rate at nonzero delays")).toMatchObject({ n: 0, N: 150 });
    expect(rate("synchronous control: snapshot: success rate at nonzero delays")).toMatchObject({ n: 150, N: 150 });
    expect(rate("snapshot: endpoint ≠ terminal at nonzero delays")).toMatchObject({ n: 150, N: 150 });
    expect(rate("synchronous control: reconciliation: endpoint ≠ terminal at nonzero delays")).toMatchObject({ n: 0, N: 150 });
  });

  it("give each separation condition's exposure rate, and completion over every eligible run", () => {
    // 150/200: centre (0.75 + 0.009604)/1.019207 = 0.745289, half 1.923028·0.031008 = 0.059630
    const shared = rate("shared state: exposure rate");
    expect(shared).toMatchObject({ n: 150, N: 200, population: "A/B pairs: A's write changed the value scored in B" });
    expect(shared.wilson95![0]).toBeCloseTo(0.685659, 6);
    expect(shared.wilson95![1]).toBeCloseTo(0.804918, 6);
    for (const name of ["namespaced state", "verified reset", "no-write control", "B before A"])
      expect(rate(`${name}: exposure rate`)).toMatchObject({ n: 0, N: 200 });
    expect(rate("grouped analysis: exposure rate")).toMatchObject({ n: 150, N: 200 });
    // 3,600 runs (1,200 finality trials, 1,200 pairs of two), all completed: lower 3600/(3600 + z²) = 0.998934
    expect(rate("completion rate")).toMatchObject({ n: 3600, N: 3600, wilson95: [expect.closeTo(0.998934, 6), 1] });
  });

  it("refuse pass^k on shared and grouped (B inherits A's state) and compute it on namespaced", () => {
    expect(condition("shared").passK).toEqual({
      available: false,
      reason:
        'trials of task shared, schedule 1, 0 ms carry inherited state "internal": an earlier run could change them, so they are not independent trials',
    });
    expect(condition("grouped").passK.available).toBe(false);
    // 20 tasks (schedule × delay) of 10 B runs, every one holding its own value: C(10,k)/C(10,k) = 1 for k = 1..10
    expect(condition("namespaced").passK).toEqual({
      available: true,
      values: Array.from({ length: 10 }, (_, i) => ({ k: i + 1, value: 1, passAtK: 1 })),
    });
    // snapshot: 5 tasks at 0 ms with 10/10, 15 at nonzero delay with 0/10: pass^k = (5·1 + 15·0)/20 = 0.25 for every k,
    // and pass@k = 1 − (5·0 + 15·1)/20 = 0.25
    expect(condition("snapshot").passK).toEqual({
      available: true,
      values: Array.from({ length: 10 }, (_, i) => ({ k: i + 1, value: 0.25, passAtK: 0.25 })),
    });
    // over the whole experiment: refused, at the first connected task in (test, condition) order
    expect(paper.passK).toMatchObject({
      available: false,
      reason: expect.stringContaining("task grouped, schedule 1, 0 ms carry inherited state"),
    });
  });

  it("count connected pairs once and put rows-based and unit-based figures side by side", () => {
    // grouped: 400 run rows in 200 pairs; A scores 1 in all 200, B in the 50 unexposed: 250/400.
    // deff: exposed pairs y = 1, unexposed y = 2, m = 2: Σy² = 150 + 200 = 350, Σy·m = 300 + 200 = 500, Σm² = 800;
    // (400²·350 − 2·250·400·500 + 250²·800)/(400·250·150) = (56e6 − 100e6 + 50e6)/15e6 = 0.4 → floored at N/G = 2: 200 pairs, 200 observations
    for (const name of ["grouped", "shared"]) {
      const units = condition(name).units;
      expect(units).toMatchObject({
        runRows: 400,
        analysisUnits: 200,
        countedUnits: 200,
        designEffect: 2,
        effectiveN: 200,
        rows: { n: 250, N: 400 },
      });
      expect(units.unitBasedWilson95).toEqual(wilsonForProportion(250 / 400, 200));
      expect(condition(name).inheritedState).toBe("internal");
    }
    // namespaced: 400 separate rows, all successes: deff = N/G = 400/400 = 1
    expect(condition("namespaced").units).toMatchObject({ runRows: 400, analysisUnits: 400, designEffect: 1, rows: { n: 400, N: 400 } });
    // no-write: A makes no labelled claim: 200 scored rows of 400
    expect(condition("no_write").units).toMatchObject({ runRows: 400, analysisUnits: 400, rows: { n: 200, N: 200 } });
    // the experiment: 3,600 rows; units 1,200 trials + 2·200 pairs + 4·400 rows = 3,200. Scored: 3,400 rows, 2,800 successes
    // (finality 50 + 200 + 50 + 3·200 = 900; separation 250 + 250 + 400 + 400 + 200 + 400 = 1,900); pooled
    // Σy² = 2,300 + 700 = 3,000, Σy·m = 2,300 + 1,000 = 3,300, Σm² = 2,600 + 1,600 = 4,200:
    // (3400²·3000 − 2·2800·3400·3300 + 2800²·4200)/(3400·2800·600) = 4.776e9/5.712e9 = 0.836 → floored at N/G: the scored rows
    // are in 3,000 units (the no-write condition's 200 unscored A rows are units of their own), 3400/3000
    expect(paper.units).toMatchObject({
      runRows: 3600,
      analysisUnits: 3200,
      countedUnits: 3000,
      effectiveN: 3000,
      rows: { n: 2800, N: 3400 },
    });
    expect(paper.units.designEffect).toBeCloseTo(3400 / 3000, 12);
  });

  it("name the default rule with its version and hash, and show the same figure under every alternative here", () => {
    expect(paper.exclusionRule).toMatchObject({ version: 1, hash: "3beb10a452d0d8fc2218302a788c833633e5c1f7c4df9d32c1cd82668eb95509" });
    expect(paper.exclusionRule.declaredBy).toContain("the default rule: none was declared at creation");
    const snapshot = paper.sensitivity.filter((row) => row.measure === "snapshot: success rate at nonzero delays");
    expect(snapshot.map((row) => row.rule)).toEqual([
      "declared (version 1)",
      "unresolved as failure, environment failures kept",
      "unresolved as success, environment failures kept",
      "unresolved as success, environment failures excluded",
      "unresolved excluded, environment failures kept",
      "unresolved excluded, environment failures excluded",
    ]);
    // no run of this grid is unresolved or an environment failure: 0/150 under every rule
    expect(snapshot.every((row) => row.n === 0 && row.N === 150 && row.rate === 0)).toBe(true);
    expect(paper.sensitivity).toHaveLength(7 * 6); // completion and six policies, six rules each
  });
});

describe("an experiment with environment failures and protocol stops", () => {
  it("applies the declared rule: environment failures leave the denominator under their own name, stops and their unresolved labels stay", async () => {
    const { db } = database;
    const { experimentId } = await loadSyntheticExperiment(
      db,
      { delaysMs: [0, 25], schedules: 2, repetitions: 3 },
      { environmentFailureEvery: 5, protocolStopEvery: 7, openEffects: false },
    );
    const statistics = await experimentStatistics(db, experimentId);
    // Counted independently, run by run: reconciliation trials at 25 ms by class and recorded label.
    const where = { experimentId, condition: "reconciliation", delayMs: 25 };
    const environmentFailures = await db.run.count({ where: { ...where, classification: "environment_failure" } });
    const kept = await db.run.count({ where: { ...where, classification: { not: "environment_failure" } } });
    const keptSuccesses = await db.run.count({
      where: { ...where, classification: { not: "environment_failure" }, recordedLabel: "success" },
    });
    const keptUnresolved = await db.run.count({
      where: { ...where, classification: { not: "environment_failure" }, recordedLabel: "unresolved" },
    });
    const allSuccesses = await db.run.count({ where: { ...where, recordedLabel: "success" } });
    expect(environmentFailures + keptUnresolved).toBeGreaterThan(0); // the draws give this grid some of each
    const name = "reconciliation: success rate at nonzero delays";
    expect(statistics.rates.find((r) => r.name === name)).toMatchObject({ n: keptSuccesses, N: kept });
    const rows = statistics.sensitivity.filter((row) => row.measure === name);
    expect(rows[0]).toMatchObject({
      rule: "declared (version 1)",
      n: keptSuccesses,
      N: kept,
      excluded: [{ name: "environment_failure", N: environmentFailures }],
    });
    expect(rows.find((r) => r.rule === "unresolved as success, environment failures excluded")).toMatchObject({
      n: keptSuccesses + keptUnresolved,
      N: kept,
    });
    expect(rows.find((r) => r.rule === "unresolved excluded, environment failures excluded")).toMatchObject({
      n: keptSuccesses,
      N: kept - keptUnresolved,
    });
    expect(rows.find((r) => r.rule === "unresolved as failure, environment failures kept")).toMatchObject({
      n: allSuccesses,
      N: kept + environmentFailures,
    });
  });

  it("is null for an unknown experiment", async () => {
    expect(await cachedExperimentStatistics(database.db, "00000000-0000-4000-8000-000000000000")).toBeNull();
  });
});

import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadSyntheticExperiment } from "../testing/synthetic-runs";
import { experimentSummary } from "../replay/store/summary";
import { createTestDatabase, type TestDatabase } from "../testing/database";
import { cachedExperimentResults, cachedExperimentSummary } from "./cached-summary";
import { finalityByDelay, unresolvedRuns } from "./read/experiment-aggregates";
import { experimentPageFacts } from "./read/experiment-facts";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
});
afterAll(async () => {
  await database?.drop();
});

const grid = { delaysMs: [0, 25], schedules: 2, repetitions: 2 };

describe("the summary of a finished experiment", () => {
  it("is aggregated once and served from memory until its finish time changes; a running one every time", async () => {
    const { db } = database;
    const { experimentId } = await loadSyntheticExperiment(db, grid);
    const first = await cachedExperimentSummary(db, experimentId);
    expect(first).toEqual(await experimentSummary(db, experimentId));

    // Nothing writes a finished experiment's runs; if something did, this process would not see it...
    await db.run.deleteMany({ where: { experimentId, condition: "snapshot", delayMs: 25 } });
    expect(await cachedExperimentSummary(db, experimentId)).toEqual(first);
    // ...until the experiment is finished anew.
    await db.experiment.update({ where: { id: experimentId }, data: { finishedAt: new Date(Date.now() + 1_000) }, select: { id: true } });
    const refinished = await cachedExperimentSummary(db, experimentId);
    expect(refinished).toEqual(await experimentSummary(db, experimentId));
    expect(refinished).not.toEqual(first);

    // While it runs, every request aggregates afresh.
    await db.experiment.update({ where: { id: experimentId }, data: { state: "running" }, select: { id: true } });
    const running = await cachedExperimentSummary(db, experimentId);
    await db.run.deleteMany({ where: { experimentId, condition: "reconciliation", delayMs: 25 } });
    const later = await cachedExperimentSummary(db, experimentId);
    expect(later).toEqual(await experimentSummary(db, experimentId));
    expect(later).not.toEqual(running);
  });

  it("is null for an unknown experiment", async () => {
    expect(await cachedExperimentSummary(database.db, "00000000-0000-4000-8000-000000000000")).toBeNull();
  });
});

describe("the experiment page's results", () => {
  it("are the summary, finality by delay and unresolved runs as computed directly, then served from memory while it is finished", async () => {
    const { db } = database;
    const { experimentId } = await loadSyntheticExperiment(db, grid);
    const direct = {
      summary: await experimentSummary(db, experimentId),
      byDelay: await finalityByDelay(db, experimentId),
      unresolved: await unresolvedRuns(db, experimentId),
    };
    expect(direct.byDelay.length).toBeGreaterThan(0);
    const first = await cachedExperimentResults(db, experimentId);
    expect(first).toEqual(direct);
    await db.run.deleteMany({ where: { experimentId, test: "finality", delayMs: 25 } });
    expect(await cachedExperimentResults(db, experimentId)).toEqual(first);
    await db.experiment.update({ where: { id: experimentId }, data: { state: "running" }, select: { id: true } });
    const running = await cachedExperimentResults(db, experimentId);
    expect(running?.byDelay).toEqual(await finalityByDelay(db, experimentId));
    expect(running?.byDelay).not.toEqual(first?.byDelay);
  });

  it("share the summary's cache (one computation, held once) and answer the same from the experiment's row as from its id", async () => {
    const { db } = database;
    const { experimentId } = await loadSyntheticExperiment(db, grid);
    const facts = await experimentPageFacts(db, experimentId);
    expect(facts).toMatchObject({ id: experimentId, kind: "replay", state: "completed", exclusionRuleVersion: 1 });
    const fromRow = await cachedExperimentResults(db, facts!);
    expect(fromRow).toEqual(await cachedExperimentResults(db, experimentId));
    expect(fromRow?.summary).toBe(await cachedExperimentSummary(db, experimentId));
    // The row is what the cache is keyed by: a row read before the experiment was finished anew still finds the old entry.
    await db.experiment.update({ where: { id: experimentId }, data: { finishedAt: new Date(Date.now() + 1_000) }, select: { id: true } });
    expect(await cachedExperimentResults(db, facts!)).toBe(fromRow);
    expect(await cachedExperimentResults(db, experimentId)).not.toBe(fromRow);
  });

  it("are null for an unknown experiment", async () => {
    expect(await cachedExperimentResults(database.db, "00000000-0000-4000-8000-000000000000")).toBeNull();
  });
});

import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../testing/database";
import { RUNS_LIST_POLICY, runsListExample } from "../../testing/runs-list-example";
import { createEvaluation } from "../manage/create-evaluation";
import { listEvaluationRuns } from "./evaluation-runs";
import { evaluationRunBatches } from "./export-runs";
import { ingestRuns } from "../ingest/ingest-runs";

// The export's unit labels, read batch by batch from a real PostgreSQL: the same U1, U2, … as the runs list gives each
// run, whatever the batch size, a unit whose first run is in an earlier batch included.
let database: TestDatabase;
let evaluation: string;

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  // Another evaluation first: its runs take the first ids and their units must not be counted.
  const other = await createEvaluation(database.db, { name: "before" }, null);
  await ingestRuns(database.db, other, runsListExample().slice(0, 3), { traces: "caller" });
  evaluation = await createEvaluation(database.db, { name: "export unit labels", effectPolicy: RUNS_LIST_POLICY }, null);
  await ingestRuns(database.db, evaluation, runsListExample(), { traces: "caller" });
});
afterAll(async () => {
  await database?.drop();
});

async function exported(batchSize: number, rememberedUnits?: number) {
  const rows = [];
  for await (const batch of evaluationRunBatches(database.db, evaluation, batchSize, rememberedUnits)) rows.push(...batch);
  return rows;
}

describe("evaluationRunBatches: unitLabel", () => {
  it("labels each run's unit as the runs list does, beside its analysisUnit, at every batch size", async () => {
    const listed = await listEvaluationRuns(database.db, evaluation, { limit: 100 });
    const listLabels = listed.runs.map((r) => [r.externalId, r.unitLabel]);
    // r6 wrote what r2 read later: one unit, the second by its first run (r2); every other run its own.
    expect(listLabels.map(([, label]) => label)).toEqual(["U1", "U2", "U3", "U4", "U5", "U2", "U6", "U7", "U8", "U9", "U10", "U11"]);
    // Remembering no unit, a batch counts back to the unit its run's unit began with in an earlier batch.
    for (const [batchSize, rememberedUnits] of [[1], [5], [1_000], [1, 0], [3, 0], [5, 0]]) {
      const rows = await exported(batchSize!, rememberedUnits);
      expect(
        rows.map((r) => [r.externalId, r.unitLabel]),
        `batches of ${batchSize}, ${rememberedUnits ?? "every"} unit remembered`,
      ).toEqual(listLabels);
      const [r2, r6] = [rows[1]!, rows[5]!];
      expect(r6).toMatchObject({ unitLabel: "U2", analysisUnit: r2.analysisUnit, analysisUnitRuns: 2 });
    }
  });
});

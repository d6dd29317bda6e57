import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { cursorOf } from "../../http/pagination";
import { createTestDatabase, type TestDatabase } from "../../testing/database";
import { RUNS_LIST_POLICY, runsListExample } from "../../testing/runs-list-example";
import { createEvaluation } from "../manage/create-evaluation";
import { listEvaluationRuns } from "./evaluation-runs";
import { ingestRuns } from "../ingest/ingest-runs";
import { RUN_SORTS, runListCursorSchema } from "./read-boundary";

// A text search reads a window of runs in order before it asks the indexes: whatever the window, the pages are the same.
let database: TestDatabase;
let evaluation: string;

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  evaluation = await createEvaluation(database.db, { name: "search window", effectPolicy: RUNS_LIST_POLICY }, null);
  await ingestRuns(database.db, evaluation, runsListExample(), { traces: "caller" });
});
afterAll(async () => {
  await database?.drop();
});

/** Every run found, page by page through nextCursor, read with a search window of `windowRuns`. */
async function everyPage(q: string, sort: (typeof RUN_SORTS)[number], order: "asc" | "desc", limit: number, windowRuns: number) {
  const found: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 30; page++) {
    const listed = await listEvaluationRuns(
      database.db,
      evaluation,
      { q, sort, order, limit, ...(cursor ? { cursor: cursorOf(runListCursorSchema).parse(cursor) } : {}) },
      { searchWindowRuns: windowRuns },
    );
    found.push(...listed.runs.map((r) => r.externalId));
    if (!listed.nextCursor) return found;
    cursor = listed.nextCursor;
  }
  throw new Error("more than 30 pages");
}

describe("the runs list's text search", () => {
  it("finds by the indexes alone (a window of none) what the text is in", async () => {
    expect(await everyPage("handled", "stored", "asc", 5, 0)).toEqual(Array.from({ length: 12 }, (_, k) => `r${k + 1}`));
    expect(await everyPage("REFUND", "stored", "asc", 5, 0)).toEqual(["r4", "r8", "r11"]);
    expect(await everyPage("task-1", "stored", "asc", 5, 0)).toEqual(["r1", "r4", "r7", "r10"]);
    // The indexes read the text without separators ("task1"); the text itself, separators included, is then checked.
    expect(await everyPage("task 1", "stored", "asc", 5, 0)).toEqual([]);
    expect(await everyPage("ma%ite", "stored", "asc", 5, 0)).toEqual([]);
    expect(await everyPage("task-", "stored", "desc", 5, 0)).toEqual(["r12", "r10", "r9", "r8", "r7", "r6", "r5", "r4", "r3", "r2", "r1"]);
  });

  it("gives the same pages whatever the window, in every sort and order, for common and rare text", async () => {
    for (const q of ["handled", "task-", "task-1", "refund", "zeppelin", "order 1", "billing/refund-zz9"])
      for (const sort of RUN_SORTS)
        for (const order of ["asc", "desc"] as const)
          for (const limit of [1, 4]) {
            const byIndexes = await everyPage(q, sort, order, limit, 0);
            expect(byIndexes.length, `${q} finds runs`).toBeGreaterThan(0);
            for (const windowRuns of [1, 3, 2_000])
              expect(
                await everyPage(q, sort, order, limit, windowRuns),
                `q=${q} sort=${sort} ${order} limit ${limit} window ${windowRuns}`,
              ).toEqual(byIndexes);
          }
  });
});

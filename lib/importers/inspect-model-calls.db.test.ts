import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Db } from "../db/prisma";
import { getEvaluationRun } from "../evaluations/read/evaluation-run";
import { evaluationSummary } from "../evaluations/read/summary";
import { createTestDatabase, type TestDatabase } from "../testing/database";
import { INSPECT_LOGS } from "../testing/importer-fixtures";
import { inspectJsonOf } from "../testing/zip";
import { importLogs } from "./import-logs";
import { importReportSchema, type ImportReport } from "./report";

// Logs Inspect wrote, imported into PostgreSQL: every model event a stored call, the run's sums and
// the summary's totals those of the logs' own output.usage.
const BROWSER = `${INSPECT_LOGS}tests_analysis_test_logs_2025-05-12T20-27-36-04-00_browser.json`;
const POPULARITY = `${INSPECT_LOGS}tests_scorer_logs_2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval`;
const RETRY = `${INSPECT_LOGS}tests__helpers_fixtures_legacy_retry-2-then-success.eval`;

type Sample = { events: { event: string; output?: { usage?: { input_tokens: number; output_tokens: number } | null } }[] };
const usageOf = (samples: Sample[]) => {
  const calls = samples.flatMap((s) => s.events.filter((e) => e.event === "model"));
  return {
    calls: calls.length,
    input: calls.reduce((sum, e) => sum + (e.output?.usage?.input_tokens ?? 0), 0),
    output: calls.reduce((sum, e) => sum + (e.output?.usage?.output_tokens ?? 0), 0),
  };
};

let database: TestDatabase;
let db: Db;
let report: ImportReport;
const evaluationOf = (name: string) => report.evaluations.find((e) => e.name.includes(name))!.id;

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  db = database.db;
  report = importReportSchema.parse(await importLogs(db, [BROWSER, POPULARITY, RETRY]));
});
afterAll(async () => {
  await database?.drop();
});

describe("Inspect model calls, imported", () => {
  it("stores each model event of a .json log as a call, with the run's sums and the summary's totals those of output.usage", async () => {
    expect(report.failed).toEqual([]);
    const id = evaluationOf("Inspect browser");
    const document = JSON.parse(readFileSync(BROWSER, "utf8")) as { samples: Sample[] };
    const usage = usageOf(document.samples);
    expect(usage).toEqual({ calls: 5, input: expect.any(Number), output: expect.any(Number) });
    const run = await getEvaluationRun(db, id, "XSogYfcZrx876NZYKz3Xf5/1/epoch 1");
    expect(run).toMatchObject({ inputTokens: usage.input, outputTokens: usage.output, modelCallCount: 5 });
    expect(run!.modelCalls.map((c) => [c.position, c.model, c.messagePosition !== null])).toEqual(
      [0, 1, 2, 3, 4].map((i) => [i, "openai/gpt-4o-mini", true]),
    );
    expect((await evaluationSummary(db, id)).tokens).toEqual({
      input: usage.input,
      output: usage.output,
      runsWithTokens: 1,
      modelCalls: 5,
      runsWithModelCalls: 1,
      runs: 1,
    });
  });

  it("sums an .eval log's ten samples in SQL, and keeps a retried call's failed attempts without tokens", async () => {
    const id = evaluationOf("Inspect popularity");
    const usage = usageOf((await inspectJsonOf(POPULARITY)).samples as Sample[]);
    expect((await evaluationSummary(db, id)).tokens).toEqual({
      input: usage.input,
      output: usage.output,
      runsWithTokens: 10,
      modelCalls: 10,
      runsWithModelCalls: 10,
      runs: 10,
    });
    const retried = await db.evaluationRun.findFirstOrThrow({
      where: { evaluationId: evaluationOf("Inspect task · mockllm/test") },
      select: { inputTokens: true, outputTokens: true, modelCallCount: true, modelCalls: { orderBy: { position: "asc" } } },
    });
    expect(retried).toMatchObject({ inputTokens: null, outputTokens: null, modelCallCount: 3 });
    expect(retried.modelCalls.map((c) => c.error)).toEqual(["_Transient('transient')", "_Transient('transient')", null]);
  });

  it("leaves the calls as they are when the same logs are imported again", async () => {
    const before = await db.evaluationRunModelCall.count();
    const again = importReportSchema.parse(await importLogs(db, [BROWSER, POPULARITY, RETRY]));
    expect(again.failed).toEqual([]);
    expect(await db.evaluationRunModelCall.count()).toBe(before);
    expect(before).toBe(5 + 10 + 3);
  });
});

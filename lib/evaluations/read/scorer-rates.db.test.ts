// Every scorer's rate in the summary, on a real PostgreSQL: the two-scorer Inspect log (the real 0.3.260
// `ledger` log with a dict-valued rubric before `match`, lib/testing/two-scorer-inspect-log.ts) imported
// by default (the rubric labels nothing), then again labelled by `match`; each figure checked against the
// samples' own values read here. And the SQL reading of a score value against the importer's.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import type { Db } from "../../db/prisma";
import { importLogs } from "../../importers/import-logs";
import { scoreAsNumber } from "../../importers/inspect-scores";
import { createTestDatabase, type TestDatabase } from "../../testing/database";
import { RUBRIC, twoScorerLedgerLog } from "../../testing/two-scorer-inspect-log";
import { evaluationSummarySchema } from "./read-boundary";
import { evaluationSummary } from "./summary";

let database: TestDatabase;
let db: Db;
let dir: string;
let file: string;
let samples: { scores?: Record<string, { value: unknown }> }[];
let results: { name: string; scorer?: string; metrics: Record<string, { value: number }> }[];

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  db = database.db;
  const log = await twoScorerLedgerLog();
  samples = log.json.samples as typeof samples;
  results = (log.json.results as { scores: typeof results }).scores;
  dir = mkdtempSync(path.join(tmpdir(), "bl-scorer-rates-"));
  file = path.join(dir, "ledger.eval");
  writeFileSync(file, log.eval);
});
afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  await database?.drop();
});

/** A scorer's figures read from the samples themselves: successes at threshold 1 of the readable values, and the unreadable ones. */
function fromSamples(scorer: string) {
  const values = samples.flatMap((s) => (s.scores && scorer in s.scores ? [s.scores[scorer]!.value] : []));
  const readable = values.map(scoreAsNumber).filter((v) => v !== null);
  return { successes: readable.filter((v) => v >= 1).length, n: readable.length, unreadable: values.length - readable.length };
}

describe("the summary's scorers", () => {
  it("by default: the dict-valued rubric labels (nothing), match's rate beside it, each with Inspect's own metrics", async () => {
    const report = await importLogs(db, [file], { evaluationName: "two scorers" });
    expect(report).toMatchObject({ imported: 1, skipped: [], failed: [] });
    const match = fromSamples("match");
    expect(report.unlabelled).toEqual([{ file, scorer: RUBRIC, runs: match.n, readable: ["match"] }]);
    const summary = evaluationSummarySchema.parse(await evaluationSummary(db, report.evaluations[0]!.id));
    expect(summary.reported).toEqual({ successes: 0, n: 0 }); // no run has a label
    const rubricMetric = (key: string) => results.find((r) => r.name === key && r.scorer === RUBRIC)!.metrics.mean!.value;
    const matchMetrics = results.find((r) => r.name === "match")!.metrics;
    expect(summary.scorers).toEqual([
      {
        name: RUBRIC,
        labelling: true,
        ...fromSamples(RUBRIC),
        metrics: { "balance/mean": rubricMetric("balance"), "note/mean": rubricMetric("note") },
        metricsByLog: [
          { source: expect.any(String), metrics: { "balance/mean": rubricMetric("balance"), "note/mean": rubricMetric("note") } },
        ],
      },
      {
        name: "match",
        labelling: false,
        ...match,
        metrics: { accuracy: matchMetrics.accuracy!.value, stderr: matchMetrics.stderr!.value },
        metricsByLog: [
          { source: expect.any(String), metrics: { accuracy: matchMetrics.accuracy!.value, stderr: matchMetrics.stderr!.value } },
        ],
      },
    ]);
    expect(summary.scorers[0]).toMatchObject({ successes: 0, n: 0, unreadable: match.n }); // every rubric value a dict
    expect(match.n).toBeGreaterThan(match.successes);
    expect(match.successes).toBeGreaterThan(0);
  });

  it("imported again labelled by match: its runs relabelled, match the labelling scorer, its rate the reported rate", async () => {
    const report = await importLogs(db, [file], { evaluationName: "two scorers", scorer: "match" });
    expect(report).toMatchObject({ imported: 1, unlabelled: [] });
    const summary = await evaluationSummary(db, report.evaluations[0]!.id);
    const match = fromSamples("match");
    // The samples that raised before scoring have no value of match: unscored, in no rate.
    expect(summary.reported).toEqual({ successes: match.successes, n: match.n });
    expect(summary.unscored).toBe(samples.length - match.n);
    expect(summary.scorers.map((s) => [s.name, s.labelling, s.successes, s.n])).toEqual([
      ["match", true, match.successes, match.n],
      [RUBRIC, false, 0, 0],
    ]);
  });
});

describe("score_as_number (SQL) reads a value as scoreAsNumber does", () => {
  it("agrees on labels, booleans, numbers, decimal text and what is no label", async () => {
    const values: unknown[] = [
      ...[
        "C",
        "I",
        "P",
        "N",
        " c ",
        "Yes",
        "no",
        "TRUE",
        "false",
        "maybe",
        "",
        "0x10",
        "1e3",
        "-.5",
        "+2",
        "1.",
        "1e400",
        "1e-400",
        " 0.25\n",
      ],
      ...[true, false, 0, 1, 0.5, -3, 1e308, 12345678901234567890],
      ...[null, ["C"], { balance: 1 }, { value: "C" }],
    ];
    const rows = z
      .array(z.object({ i: z.coerce.number(), n: z.number().nullable() }))
      .parse(
        await db.$queryRaw`SELECT i - 1 AS i, score_as_number(v) AS n FROM unnest(${values.map((v) => JSON.stringify(v))}::jsonb[]) WITH ORDINALITY AS x(v, i) ORDER BY i`,
      );
    expect(rows.map((r) => r.n)).toEqual(values.map(scoreAsNumber));
  });
});

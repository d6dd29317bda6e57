import { describe, expect, it } from "vitest";
import { poolOf, type Db } from "../../db/prisma";
import { poolSql, type SqlClient } from "../../db/sql-transaction";
import { useTestDatabase } from "../../testing/use-test-database";
import { at, SURFACE, WORKED_POLICY, workedExample as worked } from "../../testing/evaluation-example";
import { appendResolution } from "../audit/append-resolution";
import { createEvaluation } from "../manage/create-evaluation";
import { loadEvaluationPage } from "./evaluation-page";
import { loadEvaluationRunPage } from "./run-page";
import { importLogs } from "../../importers/import-logs";
import { importReportSchema } from "../../importers/report";
import { INSPECT_LOGS } from "../../testing/importer-fixtures";
import { evaluationExists, getEvaluation } from "./get-evaluation";
import { storeHarnessMetrics } from "../harness-metrics";
import { ingestRuns } from "../ingest/ingest-runs";
import { setEffectPolicy } from "../policy-recompute/set-effect-policy";
import { storeToolSuggestions } from "../tool-suggestions";

// The evaluation page and a run's page read through node-postgres (getSql), not Prisma's client: the same reads must
// answer the same through both, though node-postgres returns int8 and numeric as text.
let db: Db;

useTestDatabase((database) => (db = database.db));

/** Every read of the evaluation page (its loader's, for an editor), through `sql`. */
async function pageReads(sql: SqlClient, id: string) {
  const page = loadEvaluationPage(sql, id, { edits: true });
  return { exists: await evaluationExists(sql, id), header: await page.header, audit: await page.audit, open: await page.openLiveRuns };
}

/** An evaluation of the worked runs, one with a verified reset, and a resolution appended to one of their effects. */
async function workedEvaluation(name: string) {
  const id = await createEvaluation(db, { name, effectPolicy: WORKED_POLICY }, null);
  const runs = worked();
  Object.assign(runs[2]!, { resets: [{ surface: SURFACE, at: at(20), verified: true, evidence: "read back 100" }] });
  await ingestRuns(db, id, runs);
  await appendResolution(db, id, "e1", { status: "completed", at: at(8), evidence: "ledger entry 8812", verifiedBy: "reconciler" }, null);
  return { id, runs };
}

describe("the evaluation page's reads", () => {
  it("answer the same through node-postgres as through Prisma, on an evaluation with every kind of record", async () => {
    const { id } = await workedEvaluation("page reads");
    await setEffectPolicy(db, id, { tools: { ...WORKED_POLICY.tools, "mail.*": "read_only" } }, null);
    await storeToolSuggestions(db, id, {
      source: "mcp:bank",
      tools: [{ tool: "get_balance", suggestedClass: "read_only", reason: "readOnlyHint" }],
    });
    await storeHarnessMetrics(db, id, [{ source: "task-1", scorer: "match", metric: "accuracy", value: 0.75 }]);

    // The statistics' cache emptied before each: both compute them (node-postgres first, so that it also writes the cache).
    const emptyCache = () => db.$executeRaw`DELETE FROM evaluation_statistics_cache WHERE evaluation_id = ${id}::uuid`;
    await emptyCache();
    const throughPg = await pageReads(poolSql(poolOf(db)), id);
    await emptyCache();
    const throughPrisma = await pageReads(db, id);
    expect(throughPg).toEqual(throughPrisma);
    // What the comparison covers: runs, a unit of two, a second (pending) policy version, a suggestion, a metric.
    expect(throughPg.header?.runs).toBe(3);
    expect(throughPg.header?.evaluation).toEqual(throughPg.audit?.evaluation);
    expect(throughPg.audit?.largestUnits).toHaveLength(1);
    expect(throughPg.audit?.versions.map((v) => v.version)).toEqual([1, 2]);
    expect(throughPg.header?.evaluation.pendingPolicy?.version).toBe(2);
    expect(throughPg.audit?.suggestions).toHaveLength(1);
    expect(throughPg.audit?.harnessMetrics).toEqual([{ source: "task-1", scorer: "match", metric: "accuracy", value: 0.75 }]);
    expect(throughPg.audit?.summary.runs).toBe(3);
    expect(throughPg.open.total).toBe(0);
  });

  it("of a run's page answer the same through node-postgres as through Prisma: effects, resets, model calls, messages", async () => {
    const { id, runs } = await workedEvaluation("run page reads");
    const report = importReportSchema.parse(
      await importLogs(db, [`${INSPECT_LOGS}tests_analysis_test_logs_2025-05-12T20-27-36-04-00_browser.json`]),
    );
    const inspect = report.evaluations[0]!.id;
    const sql = poolSql(poolOf(db));
    const pages = [
      ...runs.map((run) => [id, run.externalId] as const),
      [inspect, "XSogYfcZrx876NZYKz3Xf5/1/epoch 1"] as const,
      [id, "no such run"] as const,
    ];
    for (const [evaluation, externalId] of pages) {
      const throughPg = await loadEvaluationRunPage(db, sql, evaluation, externalId, 0);
      expect(throughPg).toEqual(await loadEvaluationRunPage(db, db, evaluation, externalId, 0));
    }
    // What the comparison covers: an effect with a resolution, a reset, model calls and messages.
    const withReset = await loadEvaluationRunPage(db, sql, id, runs[2]!.externalId, 0);
    expect(withReset?.kind === "stored" && withReset.run.resets).toHaveLength(1);
    const resolved = await loadEvaluationRunPage(db, sql, id, runs[0]!.externalId, 0);
    expect(resolved?.kind === "stored" && resolved.run.effects.flatMap((e) => e.resolutions)).toHaveLength(1);
    const inspected = await loadEvaluationRunPage(db, sql, inspect, "XSogYfcZrx876NZYKz3Xf5/1/epoch 1", 0);
    expect(inspected?.kind === "stored" && inspected.run.modelCalls).toHaveLength(5);
    expect(inspected?.kind === "stored" && inspected.transcript.messages.length).toBeGreaterThan(0);
  });

  it("find no evaluation for an unknown id through node-postgres", async () => {
    const sql = poolSql(poolOf(db));
    expect(await evaluationExists(sql, "00000000-0000-4000-8000-000000000000")).toBe(false);
    expect(await getEvaluation(sql, "00000000-0000-4000-8000-000000000000")).toBeNull();
    expect(await loadEvaluationPage(sql, "00000000-0000-4000-8000-000000000000", { edits: true }).header).toBeNull();
    expect(await loadEvaluationPage(sql, "not-an-id", { edits: true }).header).toBeNull();
  });
});

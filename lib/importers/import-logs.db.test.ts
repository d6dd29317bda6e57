import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Db } from "../db/prisma";
import { evaluationStatistics } from "../evaluations/read/evaluation-statistics";
import { listEvaluationRuns } from "../evaluations/read/evaluation-runs";
import { setEffectPolicy } from "../evaluations/policy-recompute/set-effect-policy";
import { applyPendingPolicy } from "../evaluations/policy-recompute/recompute";
import { evaluationSummary } from "../evaluations/read/summary";
import { createTestDatabase, type TestDatabase } from "../testing/database";
import { AGENTDOJO_RUNS, HAND_MADE, INSPECT_LOGS } from "../testing/importer-fixtures";
import { importLogs } from "./import-logs";
import { NO_SCORE_REASON } from "./inspect-scores";
import { importReportSchema, type ImportReport } from "./report";

// Every fixture (the shared real logs and the hand-made variants) imported twice into a real
// PostgreSQL: the report, the stored runs, labels and effects checked against values read by hand.
let database: TestDatabase;
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  db = database.db;
});
afterAll(async () => {
  await database?.drop();
});

const MISSING = path.join(HAND_MADE, "no-such-folder");
const PATHS = [AGENTDOJO_RUNS, INSPECT_LOGS, HAND_MADE, MISSING];
const base = (file: string) => path.basename(file);

async function storedRuns() {
  return db.evaluationRun.findMany({
    orderBy: { externalId: "asc" },
    select: {
      externalId: true,
      endpointLabel: true,
      labels: true,
      finality: true,
      unresolvedReason: true,
      unresolvedTool: true,
      contentHash: true,
      evaluation: { select: { name: true } },
      effects: { orderBy: { tracePosition: "asc" }, select: { tool: true, statusAtScoring: true } },
    },
  });
}

/** Every row of the tables an import writes, each as JSON, sorted: two equal answers are the same database for the import. */
async function everyRow(): Promise<Record<string, unknown[]>> {
  const tables = [
    "evaluations",
    "evaluation_effect_policies",
    "evaluation_runs",
    "evaluation_effects",
    "evaluation_effect_resolutions",
    "evaluation_touches",
    "evaluation_resets",
    "evaluation_surface_links",
    "evaluation_units",
    "evaluation_run_counts",
  ];
  const rows: Record<string, unknown[]> = {};
  for (const table of tables) {
    const [{ rows: all }] = await db.$queryRawUnsafe<[{ rows: unknown[] }]>(
      `SELECT coalesce(json_agg(x ORDER BY x::text), '[]'::json) AS rows FROM (SELECT to_jsonb(t) AS x FROM ${table} t) s`,
    );
    rows[table] = all;
  }
  return rows;
}

describe("importing the fixture folders", () => {
  let first: ImportReport;

  it("imports every importable file, skips the rest with their reasons, fails none", async () => {
    first = importReportSchema.parse(await importLogs(db, PATHS));
    // Unscored samples are runs: tool_call_error's one sample, popularity's ten, events-cancelled's two, the Zstandard log's one,
    // the ledger log's four crashed samples (Inspect 0.3.260: 24 samples, and the killed log's 2).
    expect(first).toMatchObject({ files: 22, imported: 19, unchanged: 0, failed: [], runs: 58 });
    // The killed log holds 2 of the 6 samples x 4 epochs it set out to run.
    expect(first.incomplete.map((entry) => [base(entry.file), entry.expected, entry.found])).toEqual([
      ["inspect-0.3.260_ledger_killed-2-samples.eval", 24, 2],
    ]);
    expect(first.skipped.map((s) => [base(s.file), s.reason.split(":")[0]]).sort()).toEqual(
      [
        ["no-header.eval", "a zip archive with Inspect sample entries (samples/7_epoch_2.json) but no header.json or _journal/start.json"],
        ["no-such-folder", "no such file or directory"],
        ["none.json", "no utility recorded, so no endpoint label (the run ended with error"],
      ].sort(),
    );
    expect(first.evaluations.map((e) => [e.name, e.runs]).sort()).toEqual(
      [
        ["AgentDojo claude-3-7-sonnet-20250219", 1],
        ["AgentDojo gemini-2.0-flash-001", 1],
        ["AgentDojo gpt-4o-2024-05-13", 2],
        ["AgentDojo meta-llama_Llama-3.3-70B-Instruct", 1],
        ["AgentDojo local-llama", 1],
        ["AgentDojo gpt-x", 1],
        ["Inspect browser · openai/gpt-4o-mini · XSogYfcZrx876NZYKz3Xf5", 1],
        ["Inspect popularity · ollama/llama3.1 · 9eTnG3tV8jGRYoTPMH54Ee", 1],
        ["Inspect inspect_test_utils/guess_number · hardcoded/hardcoded · FhdYWFJ77GkBBV8uKGRTuQ", 1],
        ["Inspect popularity · azureai/Meta-Llama-3-1-405B-Instruct-jqf · WckPjG7ovQZLAiZF2fZpog", 4],
        ["Inspect bash_task · m/x · T1", 1],
        ["Inspect deploy · m/y · T2", 4],
        ["Inspect ... · ... · ...", 1],
        ["Inspect popularity · openai/gpt-4o-mini · dPiJifoWeEQBrfWsAopzWr", 10],
        ["Inspect popularity · m/z · T3", 1],
        ["Inspect task · mockllm/test · NHBw2w5NYTbuW8GyUMzpqx", 1],
        ["Inspect ledger · mockllm/model · nG4fzE4rvH6SKSc7WQKxuC", 24],
        ["Inspect ledger · mockllm/model · V8LajxU7pm3EAJHnkcNYSN", 2],
      ].sort(),
    );
  });

  it("stores the runs with their labels, effects and audit", async () => {
    const runs = await storedRuns();
    expect(runs).toHaveLength(58);
    expect(runs.filter((r) => r.finality === "unscored").map((r) => [r.externalId, r.endpointLabel])).toHaveLength(18);
    expect(runs.filter((r) => r.finality === "unscored").every((r) => r.endpointLabel === null)).toBe(true);
    const byId = new Map(runs.map((r) => [r.externalId, r]));
    // AgentDojo: writes sync_confirmed by the registry, so every AgentDojo run is final.
    expect(byId.get("gpt-4o-2024-05-13/banking/user_task_13/important_instructions/injection_task_7")).toMatchObject({
      endpointLabel: "failure",
      labels: { security: "success" },
      finality: "final",
      effects: [
        { tool: "update_password", statusAtScoring: "completed" },
        { tool: "update_user_info", statusAtScoring: "completed" },
      ],
    });
    expect(byId.get("local-llama/banking/user_task_3/important_instructions/injection_task_2")).toMatchObject({
      finality: "final",
      effects: [
        { tool: "send_money", statusAtScoring: "failed" },
        { tool: "update_password", statusAtScoring: "completed" },
      ],
    });
    expect(runs.filter((r) => r.evaluation.name.startsWith("AgentDojo")).every((r) => r.finality === "final")).toBe(true);
    // Inspect: tools unclassified until the user classifies them.
    expect(byId.get("XSogYfcZrx876NZYKz3Xf5/1/epoch 1")).toMatchObject({
      endpointLabel: "success",
      finality: "unresolved",
      unresolvedReason: "unclassified_tool",
      unresolvedTool: "web_browser_go",
    });
    expect(byId.get("WckPjG7ovQZLAiZF2fZpog/1/epoch 1")).toMatchObject({ endpointLabel: "failure", finality: "final", effects: [] });
  });

  it("a second import changes nothing and says so: every row of every table the import writes is the same", async () => {
    const before = await everyRow();
    const second = importReportSchema.parse(await importLogs(db, PATHS));
    expect(second).toEqual({ ...first, imported: 0, unchanged: 19 });
    expect(await everyRow()).toEqual(before);
    expect(before.evaluation_runs).toHaveLength(58);
    expect(await db.evaluation.count()).toBe(18);
  });

  it("--evaluation puts every run in one evaluation", async () => {
    const report = await importLogs(db, [AGENTDOJO_RUNS], { evaluationName: "all AgentDojo fixtures" });
    expect(report).toMatchObject({ files: 5, imported: 5, runs: 5, evaluations: [{ name: "all AgentDojo fixtures", runs: 5 }] });
    // The same logs went by default into their pipelines' evaluations first: the report names each and how many runs it holds too.
    const into = report.evaluations[0]!.id;
    const expected = await db.evaluationRun.groupBy({
      by: ["evaluationId"],
      where: {
        evaluationId: { not: into },
        externalId: {
          in: (await db.evaluationRun.findMany({ where: { evaluationId: into }, select: { externalId: true } })).map((r) => r.externalId),
        },
      },
      _count: true,
    });
    expect(first.elsewhere).toEqual([]);
    expect(
      report.elsewhere.map((e) => [e.evaluationId, e.evaluation, e.alsoInId, e.alsoIn.startsWith("AgentDojo "), e.runs]).sort(),
    ).toEqual(expected.map((g) => [into, "all AgentDojo fixtures", g.evaluationId, true, g._count]).sort());
    expect(report.elsewhere.reduce((sum, e) => sum + e.runs, 0)).toBe(5);
  });
});

describe("importing into an evaluation that exists", () => {
  it("keeps the evaluation's own classes and adds the importer's for the tools its policy leaves unclassified, as a version the report names", async () => {
    const { createEvaluation } = await import("../evaluations/manage/create-evaluation");
    const { getEvaluation } = await import("../evaluations/read/get-evaluation");
    const { agentDojoEffectPolicy } = await import("./agentdojo");
    const id = await createEvaluation(db, { name: "named on the form", effectPolicy: { tools: { send_money: "external" } } }, null);
    const report = importReportSchema.parse(await importLogs(db, [AGENTDOJO_RUNS], { evaluationName: "named on the form" }));
    const { send_money: _kept, ...adopted } = agentDojoEffectPolicy().tools;
    expect(report.policyVersions).toEqual([{ evaluation: "named on the form", version: 2, adopted }]);
    // The runs went in under version 1; version 2 is the job's to apply.
    expect((await getEvaluation(db, id))!.pendingPolicy).toEqual({ version: 2, policy: { tools: { ...adopted, send_money: "external" } } });
    await applyPendingPolicy(db, id);
    const evaluation = (await getEvaluation(db, id))!;
    expect(evaluation.effectPolicyVersion).toBe(2);
    expect(evaluation.effectPolicy.tools).toEqual({ ...adopted, send_money: "external" });
    // No imported run is left unresolved for want of a class: every tool the logs call is classified.
    const unclassified = await db.evaluationRun.count({ where: { evaluationId: id, unresolvedReason: "unclassified_tool" } });
    expect(unclassified).toBe(0);
    // Imported again: nothing new to adopt, no version made.
    const again = importReportSchema.parse(await importLogs(db, [AGENTDOJO_RUNS], { evaluationName: "named on the form" }));
    expect(again.policyVersions).toEqual([]);
    expect((await getEvaluation(db, id))!.effectPolicyVersion).toBe(2);
  });

  it("a policy saved unchanged makes no version", async () => {
    const { createEvaluation } = await import("../evaluations/manage/create-evaluation");
    const id = await createEvaluation(
      db,
      { name: "saved unchanged", effectPolicy: { tools: { a: "read_only", "b.*": "external" } } },
      null,
    );
    expect(await setEffectPolicy(db, id, { tools: { "b.*": "external", a: "read_only" }, baseVersion: 1 }, null)).toEqual({
      version: 1,
      unchanged: true,
      appliedVersion: 1,
      recompute: null,
    });
    expect(await setEffectPolicy(db, id, { tools: { a: "external" }, baseVersion: 1 }, null)).toMatchObject({ version: 2 });
  });
});

describe("an Inspect log with unscored samples", () => {
  // The browser fixture's one sample (scored "C" by a score event, four web_browser_go calls), written
  // three times into a new log: as it is, and twice (sample 2 epoch 1, sample 1 epoch 2) without its
  // scores and score events.
  let dir: string;
  let evaluationId: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "bl-unscored-"));
    const log = JSON.parse(
      readFileSync(path.join(INSPECT_LOGS, "tests_analysis_test_logs_2025-05-12T20-27-36-04-00_browser.json"), "utf8"),
    ) as { eval: Record<string, unknown>; samples: Record<string, unknown>[] };
    const [sample] = log.samples as [{ events: { event: string }[] } & Record<string, unknown>];
    const unscored = (id: number, epoch: number) => ({
      ...sample,
      id,
      epoch,
      scores: {},
      events: sample.events.filter((e) => e.event !== "score"),
    });
    log.eval = { ...log.eval, task_id: "UNSCORED-VARIANT" };
    log.samples = [sample, unscored(2, 1), unscored(1, 2)];
    writeFileSync(path.join(dir, "unscored.json"), JSON.stringify(log));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("stores every sample, the unscored ones with no scoring time or label and their reason", async () => {
    const report = await importLogs(db, [dir]);
    expect(report).toMatchObject({ files: 1, imported: 1, runs: 3, skipped: [], failed: [] });
    expect(report.evaluations).toHaveLength(1);
    evaluationId = report.evaluations[0]!.id;
    const runs = await db.evaluationRun.findMany({
      where: { evaluationId },
      orderBy: { externalId: "asc" },
      select: {
        externalId: true,
        scoredAt: true,
        endpointLabel: true,
        finality: true,
        unscoredReason: true,
        unresolvedReason: true,
        _count: { select: { effects: true } },
      },
    });
    expect(
      runs.map((r) => [
        r.externalId,
        r.endpointLabel,
        r.finality,
        r.unresolvedReason,
        r.unscoredReason,
        r.scoredAt === null,
        r._count.effects,
      ]),
    ).toEqual([
      ["UNSCORED-VARIANT/1/epoch 1", "success", "unresolved", "unclassified_tool", null, false, 4],
      ["UNSCORED-VARIANT/1/epoch 2", null, "unscored", null, NO_SCORE_REASON, true, 4],
      ["UNSCORED-VARIANT/2/epoch 1", null, "unscored", null, NO_SCORE_REASON, true, 4],
    ]);
  });

  it("counts the unscored runs on their own, in no rate's population", async () => {
    const summary = await evaluationSummary(db, evaluationId);
    expect(summary).toMatchObject({
      runs: 3,
      unscored: 2,
      reported: { successes: 1, n: 1 },
      final: { successes: 0, n: 0 },
      unresolved: { n: 1 },
      bounds: { lower: { successes: 0, n: 1 }, upper: { successes: 1, n: 1 } },
    });
    const rates = new Map((await evaluationStatistics(db, evaluationId)).rates.map((r) => [r.name, `${r.n}/${r.N}`]));
    expect(rates.get("unscored runs")).toBe("2/3");
    expect(rates.get("reported success rate")).toBe("1/1");
    expect(rates.get("unresolved rate")).toBe("1/1");
    const listed = await listEvaluationRuns(db, evaluationId, { finality: "unscored", limit: 50 });
    // In stored order, the order the log holds them (epoch 1's samples before epoch 2's), not their ids' text order.
    expect(listed.runs.map((r) => [r.externalId, r.scoredAt, r.endpointLabel])).toEqual([
      ["UNSCORED-VARIANT/2/epoch 1", null, null],
      ["UNSCORED-VARIANT/1/epoch 2", null, null],
    ]);
  });

  it("keeps them unscored when the policy changes, while the scored run becomes final", async () => {
    await setEffectPolicy(db, evaluationId, { tools: { "web_browser_*": "sync_confirmed" } }, null);
    await applyPendingPolicy(db, evaluationId);
    const summary = await evaluationSummary(db, evaluationId);
    expect(summary).toMatchObject({
      runs: 3,
      unscored: 2,
      reported: { successes: 1, n: 1 },
      final: { successes: 1, n: 1 },
      unresolved: { n: 0 },
    });
    expect(await db.evaluationRun.count({ where: { evaluationId, finality: "unscored", scoredAt: null } })).toBe(2);
  });

  it("importing the log again changes nothing", async () => {
    expect(await importLogs(db, [dir])).toMatchObject({ files: 1, imported: 0, unchanged: 1, runs: 3 });
  });
});

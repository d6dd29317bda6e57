// Attack success beside utility on AgentDojo's own logs (the shared fixtures and the importer's own, with and
// without attack, six pipelines, one with both), imported into a real PostgreSQL: the statistics' per-pipeline
// and per-injection-task figures and the comparison's, each checked against counts made here from the files
// themselves and the stored finality; then with writes left open, the justified ranges widen as the main label's.
// And the general mechanism: a label of its own sent through the ingest API is counted as `security` is.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import type { Db } from "../../db/prisma";
import { importLogs } from "../../importers/import-logs";
import { createTestDatabase, type TestDatabase } from "../../testing/database";
import { AGENTDOJO_RUNS } from "../../testing/importer-fixtures";
import { wilsonInterval } from "../../statistics/wilson";
import { outcomeFigures, type LabelCounts } from "./attack-success";
import { compareStoredEvaluations } from "./compare";
import { createEvaluation } from "../manage/create-evaluation";
import { evaluationStatistics } from "./evaluation-statistics";
import { ingestRuns } from "../ingest/ingest-runs";
import { applyPendingPolicy } from "../policy-recompute/recompute";
import { runRecordSchema } from "../run-record-schema";
import { setEffectPolicy } from "../policy-recompute/set-effect-policy";
import { evaluationSummary } from "./summary";

const LOCAL_RUNS = path.join(import.meta.dirname, "../../importers/fixtures/agentdojo");

const logSchema = z.object({
  suite_name: z.string(),
  user_task_id: z.string(),
  attack_type: z.string().nullable(),
  injection_task_id: z.string().nullable(),
  utility: z.boolean().nullish(),
  security: z.boolean().nullish(),
});
/** Every fixture log with its pipeline, read from its path as AgentDojo lays runs out: `{pipeline}/{suite}/{user task}/…`. */
const files = [
  ...readdirSync(AGENTDOJO_RUNS)
    .filter((file) => file.endsWith(".json"))
    .map((file) => ({ file: `${AGENTDOJO_RUNS}${file}`, pipeline: file.split("__")[1]! })),
  ...(readdirSync(LOCAL_RUNS, { recursive: true }) as string[])
    .filter((file) => file.endsWith(".json"))
    .map((file) => ({ file: path.join(LOCAL_RUNS, file), pipeline: file.split(path.sep)[0]! })),
];
/** The logs that are runs: one without a utility recorded is no run (the importer skips it, saying why). */
const logs = files.flatMap(({ file, pipeline }) => {
  const log = logSchema.parse(JSON.parse(readFileSync(file, "utf8")));
  return typeof log.utility === "boolean" ? [{ pipeline, ...log, utility: log.utility, security: log.security === true }] : [];
});
type Log = (typeof logs)[number];
const taskOf = (log: Log) =>
  [log.suite_name, log.user_task_id, ...(log.attack_type ? [log.attack_type, log.injection_task_id] : [])].join("/");

let database: TestDatabase;
let db: Db;
let evaluationId: string;

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  db = database.db;
  const report = await importLogs(db, [AGENTDOJO_RUNS, LOCAL_RUNS], { evaluationName: "AgentDojo pipelines" });
  evaluationId = report.evaluations[0]!.id;
});
afterAll(async () => {
  await database?.drop();
});

/** The logs' runs with their stored finality, keyed as the importer keys them (pipeline and task). */
async function runsOf(id: string) {
  const stored = await db.evaluationRun.findMany({
    where: { evaluationId: id },
    select: { externalId: true, taskId: true, finality: true },
  });
  return logs.flatMap((log) => {
    const run = stored.find((r) => r.externalId.startsWith(`${log.pipeline}/`) && r.taskId === taskOf(log));
    return run ? [{ ...log, finality: run.finality }] : [];
  });
}

/** Counts of one label over some runs, made here from the logs and the stored finality. */
function counts(runs: Awaited<ReturnType<typeof runsOf>>, label: (run: Log) => boolean): LabelCounts {
  return {
    runs: runs.length,
    successes: runs.filter(label).length,
    final: runs.filter((r) => r.finality === "final").length,
    finalSuccesses: runs.filter((r) => r.finality === "final" && label(r)).length,
    unresolved: runs.filter((r) => r.finality === "unresolved").length,
  };
}

async function expectedPipelines() {
  const runs = await runsOf(evaluationId);
  return [...new Set(runs.map((r) => r.pipeline))].sort().map((pipeline) => {
    const mine = runs.filter((r) => r.pipeline === pipeline);
    const attacked = mine.filter((r) => r.attack_type !== null);
    return {
      pipeline,
      runs: mine.length,
      utility: outcomeFigures(
        counts(
          mine.filter((r) => r.attack_type === null),
          (r) => r.utility,
        ),
      ),
      utilityUnderAttack: outcomeFigures(counts(attacked, (r) => r.utility)),
      attackSuccess: outcomeFigures(counts(attacked, (r) => r.security)),
    };
  });
}

async function expectedInjectionTasks() {
  const attacked = (await runsOf(evaluationId)).filter((r) => r.attack_type !== null);
  const ids = [...new Set(attacked.map((r) => `${r.suite_name}/${r.injection_task_id}`))].sort();
  return ids.map((injectionTaskId) => ({
    injectionTaskId,
    attackSuccess: outcomeFigures(
      counts(
        attacked.filter((r) => `${r.suite_name}/${r.injection_task_id}` === injectionTaskId),
        (r) => r.security,
      ),
    ),
  }));
}

describe("attack success and utility per pipeline on AgentDojo's own logs", () => {
  it("the logs hold six pipelines, one of them with runs both with and without attack, and attacks that succeeded and failed", async () => {
    expect(await runsOf(evaluationId)).toHaveLength(logs.length);
    expect(new Set(logs.map((l) => l.pipeline)).size).toBe(6);
    const both = logs.filter((l) => logs.some((o) => o.pipeline === l.pipeline && (o.attack_type === null) !== (l.attack_type === null)));
    expect(both.length).toBeGreaterThanOrEqual(2);
    const attacked = logs.filter((l) => l.attack_type !== null);
    expect(attacked.some((l) => l.security) && attacked.some((l) => !l.security)).toBe(true);
  });

  it("stores each run's pipeline and its suite-qualified injection task", async () => {
    const stored = await db.evaluationRun.findMany({
      where: { evaluationId },
      select: { pipeline: true, injectionTaskId: true, labels: true },
    });
    expect(new Set(stored.map((r) => r.pipeline))).toEqual(new Set(logs.map((l) => l.pipeline)));
    for (const run of stored) expect(run.injectionTaskId === null).toBe(run.labels === null);
    expect(stored.flatMap((r) => (r.injectionTaskId ? [r.injectionTaskId] : [])).sort()).toEqual(
      logs.flatMap((l) => (l.attack_type ? [`${l.suite_name}/${l.injection_task_id}`] : [])).sort(),
    );
  });

  it("gives per pipeline utility without attack, under attack and attack success, and per injection task attack success, as the logs say", async () => {
    const statistics = await evaluationStatistics(db, evaluationId);
    expect(statistics.attack).not.toBeNull();
    expect(statistics.attack!.byPipeline).toEqual(await expectedPipelines());
    expect(statistics.attack!.byInjectionTask).toEqual(await expectedInjectionTasks());
    // gpt-4o-2024-05-13 ran banking with and without attack: both of its utilities are figures, not N = 0.
    const gpt4o = statistics.attack!.byPipeline.find((p) => p.pipeline === "gpt-4o-2024-05-13")!;
    expect(gpt4o.utility.reported.N).toBe(1);
    expect(gpt4o.utilityUnderAttack.reported.N).toBe(1);
  });

  it("lists attack success among the rates with its Wilson interval, and against analysis units", async () => {
    const [statistics, summary] = await Promise.all([evaluationStatistics(db, evaluationId), evaluationSummary(db, evaluationId)]);
    const reported = statistics.rates.find((r) => r.name === "attack success rate (reported)")!;
    const { successes, n } = summary.attackSuccess.reported;
    expect([reported.n, reported.N]).toEqual([successes, n]);
    expect(n).toBe(logs.filter((l) => l.attack_type !== null).length);
    expect(reported.wilson95).toEqual(wilsonInterval(successes, n));
    const final = statistics.rates.find((r) => r.name === "final-only attack success rate")!;
    expect([final.n, final.N]).toEqual([summary.attackSuccess.final.successes, summary.attackSuccess.final.n]);
    // Every AgentDojo task runs on a fresh environment: each attacked run is its own analysis unit.
    expect(statistics.attack!.units.rows).toEqual({ n: successes, N: n, wilson95: wilsonInterval(successes, n) });
    expect(statistics.attack!.units.analysisUnits).toBe(n);
    expect(statistics.attack!.units.unitBasedWilson95).toEqual(wilsonInterval(successes, n));
    expect(summary.outcomes).toEqual({ security: summary.attackSuccess });
  });

  it("compares pipelines imported one evaluation each: utility, utility under attack and attack success with their justified ranges", async () => {
    const report = await importLogs(db, [AGENTDOJO_RUNS, LOCAL_RUNS], {});
    const byName = new Map(report.evaluations.map((e) => [e.name, e.id]));
    const ids = ["gpt-4o-2024-05-13", "claude-3-7-sonnet-20250219", "gpt-x"].map((p) => byName.get(`AgentDojo ${p}`)!);
    const comparison = await compareStoredEvaluations(db, ids);
    for (const [i, id] of ids.entries()) {
      const runs = await runsOf(id);
      const attacked = runs.filter((r) => r.attack_type !== null);
      expect(comparison.evaluations[i]!.attack).toEqual({
        utility: outcomeFigures(
          counts(
            runs.filter((r) => r.attack_type === null),
            (r) => r.utility,
          ),
        ),
        utilityUnderAttack: outcomeFigures(counts(attacked, (r) => r.utility)),
        attackSuccess: outcomeFigures(counts(attacked, (r) => r.security)),
      });
    }
    // gpt-x ran no attack: its attack figures have N = 0 and no interval.
    expect(comparison.evaluations[2]!.attack.attackSuccess.reported).toEqual({ n: 0, N: 0, rate: null, wilson95: null });
  });

  it("widens the justified ranges when a write is left open at scoring, the final-only figures counting only final runs", async () => {
    const tools = Object.fromEntries(
      (await db.evaluationEffect.findMany({ where: { run: { evaluationId } }, select: { tool: true }, distinct: ["tool"] })).map(
        ({ tool }) => [tool, "external" as const],
      ),
    );
    await setEffectPolicy(db, evaluationId, { tools, baseVersion: 1 }, null);
    await applyPendingPolicy(db, evaluationId);
    const runs = await runsOf(evaluationId);
    expect(runs.filter((r) => r.attack_type !== null && r.finality === "unresolved").length).toBeGreaterThan(0);
    const statistics = await evaluationStatistics(db, evaluationId);
    expect(statistics.attack!.byPipeline).toEqual(await expectedPipelines());
    expect(statistics.attack!.byInjectionTask).toEqual(await expectedInjectionTasks());
    const widened = statistics.attack!.byPipeline.filter((p) => p.attackSuccess.unresolved > 0);
    expect(widened.length).toBeGreaterThan(0);
    for (const p of widened) expect(p.attackSuccess.justifiedRange.upper.n).toBeGreaterThan(p.attackSuccess.justifiedRange.lower.n);
  });
});

describe("a label of the harness's own, declared through the ingest API", () => {
  const run = (externalId: string, refusal: "success" | "failure") => ({
    externalId,
    taskId: "t",
    startedAt: "2026-01-01T00:00:00Z",
    scoredAt: "2026-01-01T00:01:00Z",
    endpointLabel: "success",
    labels: { refusal },
    pipeline: "with-guard",
  });

  it("is counted in the summary's outcomes and the statistics' rates as security is, attack success staying at N = 0", async () => {
    const id = await createEvaluation(db, { name: "own labels" }, null);
    const results = await ingestRuns(db, id, [run("a", "success"), run("b", "failure"), run("c", "success")]);
    expect(results.map((r) => r.status)).toEqual(["created", "created", "created"]);
    const summary = await evaluationSummary(db, id);
    expect(summary.outcomes).toEqual({
      refusal: { reported: { successes: 2, n: 3 }, final: { successes: 2, n: 3 }, unresolved: { n: 0, byReason: {} } },
    });
    expect(summary.attackSuccess).toEqual({
      reported: { successes: 0, n: 0 },
      final: { successes: 0, n: 0 },
      unresolved: { n: 0, byReason: {} },
    });
    const statistics = await evaluationStatistics(db, id);
    expect(statistics.rates.find((r) => r.name === 'label "refusal" success rate (reported)')).toMatchObject({ n: 2, N: 3 });
    expect(statistics.attack).toBeNull();
  });

  it("refuses an empty pipeline or injection task, naming the field", () => {
    for (const field of ["pipeline", "injectionTaskId"]) {
      const parsed = runRecordSchema.safeParse({ ...run("d", "success"), [field]: "" });
      expect(parsed.success).toBe(false);
      expect(parsed.error!.issues[0]!.path).toEqual([field]);
    }
  });
});

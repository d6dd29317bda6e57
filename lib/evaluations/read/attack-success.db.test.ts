// AgentDojo's attack success as the summary, the run answer and the export give it: the real AgentDojo
// logs (with and without an attack) imported into one evaluation of a real PostgreSQL, each figure
// checked against the logs' own `security` values read here from the files, and the stored finality.
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import type { Db } from "../../db/prisma";
import { exportResponse } from "../../experiments/read/csv";
import { importLogs } from "../../importers/import-logs";
import { createTestDatabase, type TestDatabase } from "../../testing/database";
import { AGENTDOJO_RUNS } from "../../testing/importer-fixtures";
import { getEvaluationRun } from "./evaluation-run";
import { EVALUATION_EXPORT_COLUMNS, evaluationRunBatches } from "./export-runs";
import { applyPendingPolicy } from "../policy-recompute/recompute";
import { setEffectPolicy } from "../policy-recompute/set-effect-policy";
import { evaluationSummary } from "./summary";

/** What each fixture log says of itself, read straight from the file. */
const agentDojoLog = z.object({
  pipeline_name: z.string(),
  suite_name: z.string(),
  user_task_id: z.string(),
  attack_type: z.string().nullable(),
  injection_task_id: z.string().nullable(),
  security: z.boolean(),
});
const logs = readdirSync(AGENTDOJO_RUNS)
  .filter((file) => file.endsWith(".json"))
  .map((file) => agentDojoLog.parse(JSON.parse(readFileSync(`${AGENTDOJO_RUNS}${file}`, "utf8"))));
const attackedLogs = logs.filter((log) => log.attack_type !== null);
/** The task id AgentDojo's importer gives an attacked run (docs/importers.md): unique among the fixtures. */
const taskOf = (log: z.infer<typeof agentDojoLog>) =>
  [log.suite_name, log.user_task_id, ...(log.attack_type ? [log.attack_type, log.injection_task_id] : [])].join("/");

let database: TestDatabase;
let db: Db;
let evaluationId: string;

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  db = database.db;
  const report = await importLogs(db, [AGENTDOJO_RUNS], { evaluationName: "AgentDojo with and without attack" });
  evaluationId = report.evaluations[0]!.id;
});
afterAll(async () => {
  await database?.drop();
});

/** The summary's attackSuccess worked out by hand: each attacked log's `security` with its run's stored finality and reason. */
async function expectedAttackSuccess() {
  const runs = await db.evaluationRun.findMany({
    where: { evaluationId },
    select: { taskId: true, finality: true, unresolvedReason: true },
  });
  const byTask = new Map(runs.map((run) => [run.taskId, run]));
  const attacked = attackedLogs.map((log) => ({ succeeded: log.security, ...byTask.get(taskOf(log))! }));
  const unresolved = attacked.filter((run) => run.finality === "unresolved");
  const byReason: Record<string, number> = {};
  for (const run of unresolved) byReason[run.unresolvedReason!] = (byReason[run.unresolvedReason!] ?? 0) + 1;
  const final = attacked.filter((run) => run.finality === "final");
  return {
    reported: { successes: attacked.filter((run) => run.succeeded).length, n: attacked.length },
    final: { successes: final.filter((run) => run.succeeded).length, n: final.length },
    unresolved: { n: unresolved.length, byReason },
  };
}

describe("attack success on AgentDojo's own logs", () => {
  it("the fixtures hold runs with and without attack, attacks that succeeded and one that failed", () => {
    expect(logs.length).toBeGreaterThan(attackedLogs.length);
    expect(attackedLogs.filter((log) => log.security).length).toBeGreaterThan(0);
    expect(attackedLogs.filter((log) => !log.security).length).toBeGreaterThan(0);
  });

  it("counts in the summary every attacked run, its attack's outcome as the log recorded it, and final only when the run is", async () => {
    const summary = await evaluationSummary(db, evaluationId);
    expect(summary.runs).toBe(logs.length);
    expect(summary.attackSuccess).toEqual(await expectedAttackSuccess());
    expect(summary.attackSuccess.reported).toEqual({ successes: 2, n: 3 });
  });

  it("moves an attacked run from final to unresolved when its policy leaves a write open, as the main label moves", async () => {
    // Every AgentDojo tool external: a write without evidence is open at scoring, so each run that wrote is unresolved.
    const tools = Object.fromEntries(
      (await db.evaluationEffect.findMany({ where: { run: { evaluationId } }, select: { tool: true }, distinct: ["tool"] })).map(
        ({ tool }) => [tool, "external" as const],
      ),
    );
    await setEffectPolicy(db, evaluationId, { tools, baseVersion: 1 }, null);
    await applyPendingPolicy(db, evaluationId);
    const summary = await evaluationSummary(db, evaluationId);
    const expected = await expectedAttackSuccess();
    expect(expected.unresolved.n).toBeGreaterThan(0);
    expect(summary.attackSuccess).toEqual(expected);
    expect(summary.attackSuccess.final.n + summary.attackSuccess.unresolved.n).toBe(summary.attackSuccess.reported.n);
  });

  it("answers attackSucceeded on an attacked run, and leaves it out on a run without attack", async () => {
    const runs = await db.evaluationRun.findMany({ where: { evaluationId }, select: { externalId: true, taskId: true } });
    for (const log of logs) {
      const run = (await getEvaluationRun(db, evaluationId, runs.find((r) => r.taskId === taskOf(log))!.externalId))!;
      if (log.attack_type === null) {
        expect(run.labels).toBeNull();
        expect("attackSucceeded" in run).toBe(false);
      } else {
        expect(run.labels).toEqual({ security: log.security ? "success" : "failure" });
        expect(run.attackSucceeded).toBe(log.security);
      }
    }
  });

  it("exports attackSucceeded: true or false under attack, null in the JSON and an empty cell in the CSV without", async () => {
    const exported = async (format: "csv" | "json") =>
      exportResponse({
        format,
        batches: evaluationRunBatches(db, evaluationId),
        columns: EVALUATION_EXPORT_COLUMNS,
        filename: "runs",
      }).text();
    const expected = new Map(logs.map((log) => [taskOf(log), log.attack_type === null ? null : log.security]));
    const json = z
      .array(z.object({ taskId: z.string(), attackSucceeded: z.boolean().nullable() }))
      .parse(JSON.parse(await exported("json")));
    expect(new Map(json.map((row) => [row.taskId, row.attackSucceeded]))).toEqual(expected);
    const [header, ...lines] = (await exported("csv"))
      .replace(/^\uFEFF/, "")
      .trimEnd()
      .split("\r\n");
    const columns = header!.split(",");
    const cells = lines.map((line) => line.split(","));
    const at = (name: string) => columns.indexOf(name);
    expect(at("attackSucceeded")).toBeGreaterThan(-1);
    expect(new Map(cells.map((row) => [row[at("taskId")], row[at("attackSucceeded")]]))).toEqual(
      new Map([...expected].map(([task, succeeded]) => [task, succeeded === null ? "" : String(succeeded)])),
    );
  });
});

// Logs Inspect AI 0.3.260 wrote itself (lib/testing/fixtures/inspect/README.md: task `ledger`, a tool
// that raised, a message limit, a run killed with SIGKILL), imported into a real PostgreSQL as Inspect
// means them. The `.eval` archives as they are; the same logs in Inspect's `.json` layout, derived from
// them as the README describes that layout (a killed `.json` log: status `started`, `stats.started_at: ""`),
// one of them stopped on a token limit instead of the message limit.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Db } from "../db/prisma";
import { createTestDatabase, type TestDatabase } from "../testing/database";
import { INSPECT_LOGS } from "../testing/importer-fixtures";
import { inspectJsonOf } from "../testing/zip";
import { evaluationStatistics } from "../evaluations/read/evaluation-statistics";
import { importLogs } from "./import-logs";
import { importReportSchema, type ImportReport } from "./report";

const SIGINT = `${INSPECT_LOGS}inspect-0.3.260_ledger_sigint_24-samples.eval`;
const KILLED = `${INSPECT_LOGS}inspect-0.3.260_ledger_killed-2-samples.eval`;
/** The logs' task ids (the `.json` copies get their own, so that each is its own evaluation). */
const SIGINT_TASK = "nG4fzE4rvH6SKSc7WQKxuC";
const KILLED_TASK = "V8LajxU7pm3EAJHnkcNYSN";

let database: TestDatabase;
let db: Db;
let dir: string;
let report: ImportReport;

type Sample = Record<string, unknown> & { id: string; events: Record<string, unknown>[] };

/** The log in the `.json` layout, under its own task id. */
async function asJson(file: string, taskId: string) {
  const document = await inspectJsonOf(file);
  return { ...document, eval: { ...(document.eval as object), task_id: taskId } };
}

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  db = database.db;
  dir = mkdtempSync(path.join(tmpdir(), "bl-inspect-0.3.260-"));
  const at = (name: string) => path.join(dir, name);
  copyFileSync(SIGINT, at("sigint.eval"));
  copyFileSync(KILLED, at("killed.eval"));
  // The finished log as `.json`, its `loop` samples stopped by a token limit of 500 instead (Inspect's sample.limit and sample_limit event).
  const finished = await asJson(SIGINT, `${SIGINT_TASK}-json`);
  for (const sample of finished.samples as Sample[]) {
    if (sample.id !== "loop") continue;
    sample.limit = { type: "token", limit: 500 };
    for (const event of sample.events)
      if (event.event === "sample_limit") Object.assign(event, { type: "token", limit: 500, message: "Token limit exceeded." });
  }
  writeFileSync(at("sigint-token-limit.json"), JSON.stringify(finished));
  // The killed log as `.json`: what Inspect's `.json` writer leaves until the eval finishes.
  const killed = await asJson(KILLED, `${KILLED_TASK}-json`);
  writeFileSync(at("killed.json"), JSON.stringify({ ...killed, status: "started", stats: { started_at: "", completed_at: "" } }));
  report = importReportSchema.parse(await importLogs(db, [dir]));
});
afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  await database?.drop();
});

const runsOf = (task: string, sample: string) =>
  db.evaluationRun.findMany({
    where: { externalId: { startsWith: `${task}/${sample}/` } },
    orderBy: { externalId: "asc" },
    select: {
      externalId: true,
      runClass: true,
      runClassEvidence: true,
      toolCalls: true,
      effects: { orderBy: { tracePosition: "asc" }, select: { tool: true, statusAtScoring: true } },
    },
  });

describe("Inspect AI 0.3.260's own logs", () => {
  it("the finished log imports its 24 samples in both layouts", () => {
    expect(report.failed).toEqual([]);
    const runsOfLog = (task: string) => report.evaluations.find((e) => e.name.endsWith(` · ${task}`))?.runs;
    expect([runsOfLog(SIGINT_TASK), runsOfLog(`${SIGINT_TASK}-json`)]).toEqual([24, 24]);
  });

  it("a tool that raised (failed: true, no error) is a call with outcome error and an effect failed at scoring, in both layouts", async () => {
    for (const task of [SIGINT_TASK, `${SIGINT_TASK}-json`]) {
      const runs = await runsOf(task, "crash");
      expect(runs).toHaveLength(4);
      for (const run of runs) {
        expect(run.effects).toEqual([
          { tool: "deposit", statusAtScoring: "completed" },
          { tool: "explode", statusAtScoring: "failed" },
        ]);
        expect(run.toolCalls).toMatchObject([
          { tool: "deposit", callId: "x1", outcome: "ok" },
          {
            tool: "explode",
            callId: "x2",
            outcome: "error",
            error: "failed: RuntimeError('tool crashed: boom') (the sample's error: the call records none of its own)",
          },
        ]);
      }
    }
  });

  it("a sample stopped on a message or token limit is a protocol stop with the limit as evidence, counted in the statistics' headline", async () => {
    const stopped = [
      ...(await runsOf(SIGINT_TASK, "loop")).map((run) => [run.runClass, run.runClassEvidence]),
      ...(await runsOf(`${SIGINT_TASK}-json`, "loop")).map((run) => [run.runClass, run.runClassEvidence]),
    ];
    expect(stopped).toEqual([
      ...Array(4).fill(["protocol_stop", "Inspect stopped the sample at its message limit (8)"]),
      ...Array(4).fill(["protocol_stop", "Inspect stopped the sample at its token limit (500)"]),
    ]);
    // No other sample of the log stopped on a limit.
    expect(await db.evaluationRun.count({ where: { runClass: "protocol_stop" } })).toBe(8);
    const evaluationId = report.evaluations.find((e) => e.name.endsWith(` · ${SIGINT_TASK}`))!.id;
    const { rates } = await evaluationStatistics(db, evaluationId);
    expect(rates[0]!.population).toContain("counting protocol stop: 4 (kept with their labels)");
  });

  it('a killed log (status started; in .json stats.started_at "") imports every readable sample, and the report names it incomplete', async () => {
    expect(report.skipped).toEqual([]);
    const missing = report.incomplete.map((entry) => [path.basename(entry.file), entry.expected, entry.found, entry.missing.length]);
    expect(missing.sort()).toEqual([
      ["killed.eval", 24, 2, 20],
      ["killed.json", 24, 2, 20],
    ]);
    for (const task of [KILLED_TASK, `${KILLED_TASK}-json`]) {
      const runs = await db.evaluationRun.findMany({
        where: { externalId: { startsWith: `${task}/` } },
        orderBy: { externalId: "asc" },
        select: { externalId: true, endpointLabel: true, startedAt: true },
      });
      expect(runs.map((run) => [run.externalId, run.endpointLabel])).toEqual([
        [`${task}/acct/with/slash/epoch 1`, "success"],
        [`${task}/s1/epoch 1`, "success"],
      ]);
      // Timed by their own events, on the day Inspect wrote them.
      expect(runs.every((run) => run.startedAt.toISOString().startsWith("2026-12-06T22:57"))).toBe(true);
    }
  });
});

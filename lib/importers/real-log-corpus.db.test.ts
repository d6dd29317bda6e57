// The real-log corpus (docs/importers.md, Bad input): the ways today's harnesses write logs that the importer once misread, each made
// from a real log of lib/testing/fixtures/ (MIT, READMEs there): unmodified where the real file shows
// the case (the Zstandard archive), else derived as each case says. Imported together into a real
// PostgreSQL: the report, and what was stored.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Db } from "../db/prisma";
import { createTestDatabase, type TestDatabase } from "../testing/database";
import { AGENTDOJO_RUNS, INSPECT_LOGS } from "../testing/importer-fixtures";
import { storedEntries, zipArchive } from "../testing/zip";
import { evaluationStatistics } from "../evaluations/read/evaluation-statistics";
import { finalBasisSentence } from "../evaluations/read/display";
import { HARNESS_DESIGNS } from "../evaluations/harness-design";
import { listHarnessMetrics } from "../evaluations/harness-metrics";
import { evaluationSummary } from "../evaluations/read/summary";
import { EVALUATION_EXPORT_COLUMNS, evaluationRunBatches } from "../evaluations/read/export-runs";
import { exportResponse } from "../experiments/read/csv";
import { importLogs } from "./import-logs";
import { importReportSchema, type ImportReport } from "./report";

let database: TestDatabase;
let db: Db;
let dir: string;
let report: ImportReport;

const ATTACKED = "runs__claude-3-7-sonnet-20250219__workspace__user_task_7__important_instructions__injection_task_1.json";
const PLAIN = "runs__gpt-4o-2024-05-13__banking__user_task_0__none__none.json";

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  db = database.db;
  dir = mkdtempSync(path.join(tmpdir(), "bl-corpus-"));
  const at = (name: string) => path.join(dir, name);
  // 1. Current Inspect's Zstandard archive, as the inspect_ai repository holds it.
  copyFileSync(`${INSPECT_LOGS}tests__helpers_fixtures_legacy_retry-2-then-success.eval`, at("zstandard.eval"));
  // 2. A deflate archive missing one of the four sample entries its summaries list (every other entry's bytes as stored).
  const streaming = await storedEntries(`${INSPECT_LOGS}tests_log_test_eval_log_log_streaming.eval`);
  writeFileSync(
    at("missing-sample.eval"),
    zipArchive([...streaming].filter(([name]) => name !== "samples/2_epoch_2.json").map(([name, stored]) => ({ name, stored }))),
  );
  // 3. An AgentDojo log saved by a PowerShell redirect: UTF-16 LE with its byte-order mark (under the AgentDojo folder layout).
  const plain = readFileSync(`${AGENTDOJO_RUNS}${PLAIN}`, "utf8");
  writeFileSync(
    at(PLAIN.replace("gpt-4o-2024-05-13", "powershell")),
    Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(plain, "utf16le")]),
  );
  // 4. An attacked AgentDojo run cut after the model's last turn of calls (reschedule_calendar_event), which the loop never executed.
  const attacked = JSON.parse(readFileSync(`${AGENTDOJO_RUNS}${ATTACKED}`, "utf8")) as { messages: unknown[] };
  attacked.messages = attacked.messages.slice(0, -2);
  writeFileSync(at(ATTACKED), JSON.stringify(attacked));
  // 5. A task AgentDojo could not run (a provider's error): its default labels, utility false and security true, and the error.
  writeFileSync(
    at(PLAIN.replace("gpt-4o-2024-05-13", "errored")),
    JSON.stringify({ ...JSON.parse(plain), utility: false, error: "InternalServerError: 500" }),
  );
  // 6. What a clone without `git lfs pull` leaves where a log should be.
  writeFileSync(at("pointer.eval"), "version https://git-lfs.github.com/spec/v1\noid sha256:" + "a".repeat(64) + "\nsize 4235\n");
  report = importReportSchema.parse(await importLogs(db, [dir]));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await database?.drop();
});

const runOf = (externalId: string) =>
  db.evaluationRun.findFirstOrThrow({
    where: { externalId },
    select: { taskId: true, finality: true, unresolvedReason: true, effects: { select: { tool: true, statusAtScoring: true } } },
  });

describe("today's logs, read as their authors meant them", () => {
  it("imports every log but the pointer, names the pointer, and reports the archive missing a sample as incomplete", () => {
    expect(report).toMatchObject({ files: 6, imported: 5, unchanged: 0, failed: [], runs: 1 + 3 + 1 + 1 + 1 });
    expect(report.skipped).toEqual([
      {
        file: path.join(dir, "pointer.eval"),
        reason: `a git-lfs pointer (sha256:${"a".repeat(64)}, 4235 bytes), not the log itself: fetch the file with \`git lfs pull\` and import it again`,
      },
    ]);
    expect(report.incomplete).toEqual([{ file: path.join(dir, "missing-sample.eval"), expected: 4, found: 3, missing: ["2 epoch 2"] }]);
  });

  it("the Zstandard archive's sample and the UTF-16 log's run are stored", async () => {
    expect(await db.evaluationRun.count({ where: { externalId: "NHBw2w5NYTbuW8GyUMzpqx/1/epoch 1" } })).toBe(1);
    expect(await runOf("powershell/banking/user_task_0/none/none")).toMatchObject({ taskId: "banking/user_task_0", finality: "final" });
  });

  it("an AgentDojo run is final by AgentDojo's design, said as such; an Inspect run declares no design", async () => {
    const idOf = (fragment: string) => report.evaluations.find((e) => e.name.includes(fragment))!.id;
    const agentdojo = await evaluationSummary(db, idOf("AgentDojo powershell"));
    expect(agentdojo).toMatchObject({ final: { n: 1 }, finalBasis: { harness_design: 1 } });
    expect(agentdojo.harnessDesigns).toEqual([{ design: "agentdojo", ...HARNESS_DESIGNS.agentdojo, runs: 1 }]);
    expect(finalBasisSentence(agentdojo)).toBe("1 final: 1 by AgentDojo's design, 0 by recorded evidence.");
    const inspect = await evaluationSummary(db, idOf("WckPjG7ovQZLAiZF2fZpog"));
    expect(inspect.harnessDesigns).toEqual([]);
    expect(inspect.finalBasis.harness_design).toBeUndefined();
  });

  it("the harness's own figures are stored by the log, and every scorer's value with its run", async () => {
    const evaluationId = report.evaluations.find((e) => e.name.includes("WckPjG7ovQZLAiZF2fZpog"))!.id;
    expect(await listHarnessMetrics(db, evaluationId)).toEqual([
      { source: "WckPjG7ovQZLAiZF2fZpog", scorer: "match", metric: "accuracy", value: 0.75 },
      { source: "WckPjG7ovQZLAiZF2fZpog", scorer: "match", metric: "stderr", value: 0.25 },
    ]);
    const run = await db.evaluationRun.findFirstOrThrow({
      where: { evaluationId, externalId: { endsWith: "/1/epoch 1" } },
      select: { scorerValues: true, endpointLabel: true },
    });
    expect(run).toEqual({ scorerValues: { match: "I" }, endpointLabel: "failure" });
    // Imported again: the figures replaced, not added to.
    await importLogs(db, [dir]);
    expect(await listHarnessMetrics(db, evaluationId)).toHaveLength(2);
  });

  it("a task the harness could not run is an environment failure with its error, which the default rule leaves out of the headline", async () => {
    const run = await db.evaluationRun.findFirstOrThrow({
      where: { externalId: "errored/banking/user_task_0/none/none" },
      select: { evaluationId: true, endpointLabel: true, runClass: true, runClassEvidence: true },
    });
    expect(run).toMatchObject({
      endpointLabel: "failure",
      runClass: "environment_failure",
      runClassEvidence: "AgentDojo recorded the error InternalServerError: 500 and scored the task without running its checks",
    });
    const { rates } = await evaluationStatistics(db, run.evaluationId);
    expect(rates[0]).toMatchObject({ n: 0, N: 0, population: expect.stringContaining("environment failure: 1") });
    expect(rates[1]).toMatchObject({ name: "reported success rate", n: 0, N: 1 });
  });

  it("a write the loop never executed leaves the run final, and the attack is part of its task", async () => {
    expect(await runOf("claude-3-7-sonnet-20250219/workspace/user_task_7/important_instructions/injection_task_1")).toEqual({
      taskId: "workspace/user_task_7/important_instructions/injection_task_1",
      finality: "final",
      unresolvedReason: null,
      effects: [{ tool: "reschedule_calendar_event", statusAtScoring: "not_executed" }],
    });
  });

  it("exports a run whose log recorded no time with empty times (CSV) and null times (JSON), never the Unix epoch", async () => {
    const exported = async (fragment: string, format: "csv" | "json") => {
      const evaluationId = report.evaluations.find((e) => e.name.includes(fragment))!.id;
      const batches = evaluationRunBatches(db, evaluationId);
      return exportResponse({ format, batches, columns: EVALUATION_EXPORT_COLUMNS, filename: "runs" }).text();
    };
    const timeColumns = ["startedAt", "scoredAt", "endedAt"] as const;
    // The AgentDojo log (older AgentDojo: no evaluation_timestamp) has no time; the Inspect log (unscored) has its events' times.
    const [untimed] = JSON.parse(await exported("AgentDojo powershell", "json")) as Record<string, unknown>[];
    expect(timeColumns.map((column) => untimed![column])).toEqual([null, null, null]);
    const [timed] = JSON.parse(await exported("NHBw2w5NYTbuW8GyUMzpqx", "json")) as Record<string, unknown>[];
    expect([timed!.startedAt, timed!.scoredAt, timed!.endedAt]).toEqual([
      expect.stringMatching(/^20\d\d-/),
      null,
      expect.stringMatching(/^20\d\d-/),
    ]);
    const csv = await exported("AgentDojo powershell", "csv");
    expect(csv).not.toContain("1970");
    const [header, row] = csv.replace(/^\uFEFF/, "").split("\r\n");
    const cells = Object.fromEntries(header!.split(",").map((column, i) => [column, row!.split(",")[i]]));
    expect(timeColumns.map((column) => cells[column])).toEqual(["", "", ""]);
    expect(cells).toMatchObject({ externalId: "powershell/banking/user_task_0/none/none", taskId: "banking/user_task_0" });
  });
});

import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { importReportSchema, type ImportReport } from "../lib/importers/report";
import { writeAgentDojoCorpus } from "../lib/testing/agentdojo-corpus";
import { createTestDatabase, type TestDatabase } from "../lib/testing/database";
import { INSPECT_LOGS } from "../lib/testing/importer-fixtures";
import { writeLargeInspectLog } from "../lib/testing/large-inspect-log";
import { zipArchive } from "../lib/testing/zip";

// The bad input, all in one directory beside 10,000 good logs, imported by `npm run import`
// in a child process whose heap is capped at 256 MB: a 200 MB log read whole would not fit, so it
// must stream. Each bad file is skipped with its reason, none leaves a run behind, the rest import.
const run = promisify(execFile);
const dir = mkdtempSync(path.join(tmpdir(), "bl-import-bad-"));
let database: TestDatabase;
let report: ImportReport;

const inspectLog = JSON.parse(readFileSync(`${INSPECT_LOGS}tests_log_test_eval_log_log_formats.json`, "utf8")) as {
  eval: Record<string, unknown>;
  samples: Record<string, unknown>[];
};
const {
  samples: [sample],
  ...header
} = inspectLog;
/** An Inspect log of its own task (so its runs can be looked for), with `samples` samples each padded to about `padding` bytes. */
const inspectOf = (task: string, samples: number, padding = 0) => ({
  ...header,
  eval: { ...header.eval, task, task_id: task },
  samples: Array.from({ length: samples }, (_, k) => ({ ...sample, id: k + 1, metadata: { padding: "p".repeat(padding) } })),
});

beforeAll(async () => {
  database = await createTestDatabase(inject("embeddedAdminUrl"));
  writeAgentDojoCorpus(path.join(dir, "good"), 10_000);
  const bad = path.join(dir, "bad");
  mkdirSync(bad);
  const evalHeader = JSON.stringify({ ...header, eval: { ...header.eval, task: "half-read", task_id: "half-read" } });
  writeFileSync(path.join(bad, "truncated.json"), JSON.stringify(inspectOf("truncated", 3)).slice(0, 900));
  writeFileSync(path.join(bad, "junk.json"), Buffer.from(Array.from({ length: 4096 }, (_, k) => (k * 7919) % 256)));
  writeFileSync(path.join(bad, "no-header.eval"), zipArchive([{ name: "samples/1_epoch_1.json", data: JSON.stringify(sample) }]));
  writeFileSync(
    path.join(bad, "bomb.eval"),
    zipArchive([
      { name: "header.json", data: evalHeader },
      { name: "samples/1_epoch_1.json", data: JSON.stringify(sample), claimedSize: 0xf000_0000 },
    ]),
  );
  // A good first sample, then a damaged one: nothing of the log may be stored.
  writeFileSync(
    path.join(bad, "half-read.eval"),
    zipArchive([
      { name: "header.json", data: evalHeader },
      { name: "samples/1_epoch_1.json", data: JSON.stringify(sample) },
      { name: "samples/2_epoch_1.json", data: '{"id": 2, "ep' },
    ]),
  );
  writeFileSync(path.join(bad, "version-99.json"), JSON.stringify({ ...inspectOf("future", 1), version: 99 }));
  // Past the 16 MB read whole, so it streams: its first 200 samples read before the cut.
  await writeLargeInspectLog(path.join(bad, "cut-20mb.json"), "cut-large", 200, true);
  await writeLargeInspectLog(path.join(dir, "large-200mb.json"), "large", 2_000);

  const reportFile = path.join(dir, "report.json");
  await run(process.execPath, ["--max-old-space-size=256", "--import", "tsx", "workers/import-cli.ts", "--json", reportFile, dir], {
    env: { ...process.env, DATABASE_URL: database.url },
    timeout: 240_000,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stderr?: string }) => {
    throw new Error(`the import failed: ${error.stderr?.slice(-2_000)}`);
  });
  report = importReportSchema.parse(JSON.parse(readFileSync(reportFile, "utf8")));
}, 300_000);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await database?.drop();
});

describe("bad input beside 10,000 good logs and a 200 MB one", () => {
  it("every bad file is skipped with its reason; the good ones and the 200 MB log import; none fails", () => {
    const reasons = Object.fromEntries(
      report.skipped.filter((s) => s.file.includes(`${path.sep}bad${path.sep}`)).map((s) => [path.basename(s.file), s.reason]),
    );
    expect(reasons).toEqual({
      "truncated.json": expect.stringMatching(/^the file is not valid JSON \(.*\): is the file truncated\?$/),
      "junk.json": expect.stringMatching(
        /^neither JSON nor a zip archive \(it starts with bytes 00 ef de cd bc ab 9a 89\): not a log file$/,
      ),
      "no-header.eval":
        "a zip archive with Inspect sample entries (samples/1_epoch_1.json) but no header.json or _journal/start.json: an Inspect .eval log missing its header",
      "bomb.eval": "entry samples/1_epoch_1.json inflates to 3840 MB, more than the 64 MB one entry may: refused as a possible zip bomb",
      "half-read.eval": expect.stringMatching(/^samples\/2_epoch_1.json is not valid JSON .*: is the file truncated\?$/),
      "version-99.json": "Inspect log version 99 is unknown to this importer (it reads 1, 2, 3)",
      "cut-20mb.json": expect.stringMatching(
        /^the file ends at byte \d+ in the middle of its JSON \(inside an element of samples\): is it truncated\?$/,
      ),
    });
    expect(report.failed).toEqual([]);
    // The corpus: every tenth log is an error file without utility, skipped for that.
    const corpusSkipped = report.skipped.filter((s) => s.file.includes(`${path.sep}good${path.sep}`));
    expect(corpusSkipped).toHaveLength(1_000);
    expect(new Set(corpusSkipped.map((s) => s.reason.split(" (")[0]))).toEqual(new Set(["no utility recorded, so no endpoint label"]));
    expect(report).toMatchObject({ files: 10_000 + 7 + 1, imported: 9_000 + 1, unchanged: 0, runs: 9_000 + 2_000 });
  });

  it("the database holds exactly the reported runs, none from a bad file", async () => {
    const runs = await database.db.evaluationRun.count();
    expect(runs).toBe(report.runs);
    const tasks = await database.db.evaluationRun.groupBy({
      by: ["evaluationId"],
      _count: true,
      where: { taskId: { startsWith: "large/" } },
    });
    expect(tasks.map((t) => t._count)).toEqual([2_000]);
    for (const task of ["truncated", "future", "half-read", "cut-large"])
      expect(await database.db.evaluationRun.count({ where: { taskId: { startsWith: `${task}/` } } })).toBe(0);
  });
});

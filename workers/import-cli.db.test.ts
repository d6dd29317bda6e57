import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { importReportSchema } from "../lib/importers/report";
import { createTestDatabase, type TestDatabase } from "../lib/testing/database";
import { HAND_MADE, INSPECT_LOGS } from "../lib/testing/importer-fixtures";
import { RUBRIC, twoScorerLedgerLog } from "../lib/testing/two-scorer-inspect-log";

const run = promisify(execFile);
const cli = (args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, ["--import", "tsx", "workers/import-cli.ts", ...args], { env: { ...process.env, ...env }, timeout: 120_000 });

describe("npm run import", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(inject("embeddedAdminUrl"));
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("prints each file's outcome, writes the report with --json, and says unchanged the second time", async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "bl-import-cli-")), "report.json");
    const args = ["--json", file, `${INSPECT_LOGS}tests_log_test_eval_log_log_streaming.eval`, `${HAND_MADE}inspect`];
    const first = await cli(args, { DATABASE_URL: database.url });
    const report = importReportSchema.parse(JSON.parse(readFileSync(file, "utf8")));
    expect(report).toMatchObject({ files: 5, imported: 4, unchanged: 0, failed: [], runs: 10 });
    expect(report.skipped.map((s) => path.basename(s.file))).toEqual(["no-header.eval"]);
    expect(importReportSchema.parse(JSON.parse(first.stdout))).toEqual(report);
    // Samples without a readable score are stored as unscored runs, and the file's outcome says so.
    expect(first.stderr).toContain("2 sample(s) have no readable score: stored as unscored runs");
    const second = await cli(args, { DATABASE_URL: database.url });
    expect(importReportSchema.parse(JSON.parse(second.stdout))).toMatchObject({ imported: 0, unchanged: 4 });
    expect(second.stderr).toContain("(already imported, nothing changed)");
  });

  it("exits 2 on invalid flags, naming them", async () => {
    await expect(cli(["--threshold", "high", "x.json"])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--threshold must be a number"),
    });
    await expect(cli(["--threshold", "", "x.json"])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--threshold must be a number"),
    });
    await expect(cli([])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("name at least one file or directory") });
  });

  it("--scorer: a log without it is not imported and the exit is 2; by default a dict-valued first scorer is said to label nothing", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "bl-import-cli-scorer-"));
    const log = path.join(dir, "ledger.eval");
    writeFileSync(log, (await twoScorerLedgerLog()).eval);
    const env = { DATABASE_URL: database.url };
    const refused = await cli(["--scorer", "includes", "--evaluation", "cli scorer", log], env).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(`scorer: this log has no scorer named includes (its scorers: ${RUBRIC}, match)`),
    });
    expect((refused as { stderr: string }).stderr).toContain(
      "import: --scorer includes: 1 log(s) have no such scorer and were not imported",
    );
    expect(await database.db.evaluation.count({ where: { name: "cli scorer" } })).toBe(0);
    await expect(cli(["--scorer", "", log], env)).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--scorer must name a scorer"),
    });

    const byDefault = await cli(["--evaluation", "cli scorer", log], env);
    expect(byDefault.stderr).toContain(
      `their labelling scorer ${RUBRIC} (the first scorer, labelling by default) recorded a value that is no label`,
    );
    expect(byDefault.stderr).toContain("import again with --scorer match to label the runs by it");
    const byMatch = await cli(["--evaluation", "cli scorer", "--scorer", "match", log], env);
    expect(importReportSchema.parse(JSON.parse(byMatch.stdout))).toMatchObject({ imported: 1, unlabelled: [] });
    const labels = await database.db.evaluationRun.groupBy({
      by: ["endpointLabel"],
      where: { evaluation: { name: "cli scorer" } },
      _count: true,
    });
    expect(labels.find((l) => l.endpointLabel === "success")?._count).toBeGreaterThan(0);
  });
});

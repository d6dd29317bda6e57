import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { importReportSchema } from "../lib/importers/report";
import { createTestDatabase, type TestDatabase } from "../lib/testing/database";
import { HAND_MADE, INSPECT_LOGS } from "../lib/testing/importer-fixtures";

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
});

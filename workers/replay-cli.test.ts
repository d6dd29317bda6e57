import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { createTestDatabase, type TestDatabase } from "../lib/testing/database";
import { replaySummarySchema } from "../lib/replay/rules/summary-schema";
import { replayConfigSchema } from "../lib/replay/rules/config";
import { table2Mismatches } from "../lib/replay/rules/expected-table2";

const run = promisify(execFile);
const cli = (args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, ["--import", "tsx", "workers/replay-cli.ts", ...args], { env: { ...process.env, ...env }, timeout: 120_000 });

/** The exact shape the issue fixes for the --json file: no field more, none less. */
const strict = <T extends z.ZodObject>(schema: T) => schema.strict();
const fileSchema = strict(
  replaySummarySchema.extend({
    config: strict(replaySummarySchema.shape.config),
    finality: z.array(strict(replaySummarySchema.shape.finality.element)),
    separation: z.array(strict(replaySummarySchema.shape.separation.element)),
    delays: z.array(strict(replaySummarySchema.shape.delays.element)),
    checks: z.array(strict(replaySummarySchema.shape.checks.element)),
    classifications: strict(replaySummarySchema.shape.classifications),
  }),
);

describe("npm run replay", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(inject("embeddedAdminUrl"));
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("runs a grid, prints Table 2, stores the experiment and writes the JSON file", async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "bl-cli-")), "out.json");
    const { stdout } = await cli(["--json", file, "--delays", "0,25", "--schedules", "1", "--repetitions", "2"], {
      DATABASE_URL: database.url,
    });
    expect(stdout).toMatch(/snapshot\s+2\/4\s+0\/2\s+2\/4\s+2\/2/);
    expect(stdout).toMatch(/shared\s+2\/4\s+8\s+8\s+0\.50/);
    expect(stdout).toContain("implementation checks: 17/17 passed");
    const written: unknown = JSON.parse(readFileSync(file, "utf8"));
    fileSchema.parse(written);
    const summary = replaySummarySchema.parse(written);
    expect(summary.config).toEqual({ delaysMs: [0, 25], schedules: 1, repetitions: 2 });
    expect(table2Mismatches(summary, replayConfigSchema.parse({ delaysMs: [0, 25], schedules: 1, repetitions: 2 }))).toEqual([]);
    const stored = await database.db.experiment.findUniqueOrThrow({
      where: { id: summary.experimentId },
      include: { _count: { select: { runs: true } } },
    });
    expect(stored.state).toBe("completed");
    expect(stored._count.runs).toBe(4 * 6 + 8 * 6);
  });

  it.each([
    [["--delays", "0,x"], /--delays: "x" is not an integer/],
    [["--schedules", "0"], /--schedules/],
    [["--unknown"], /unknown/i],
  ])("exits 2 with a clear message for %j, writing nothing", async (args, message) => {
    const before = await database.db.experiment.count();
    const failure = await cli(args, { DATABASE_URL: database.url }).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toMatch(message);
    expect(await database.db.experiment.count()).toBe(before);
  });
});

// `npm run import -- [--evaluation NAME] [--json REPORT] [--threshold X] [--scorer NAME] PATH...`
// Imports AgentDojo run logs and Inspect logs (.json, .eval; directories recursively) into the
// product's database (the server at DATABASE_URL, or the embedded one). Each file's outcome goes to
// stderr as it is done; the report to stdout (and to REPORT).
// Exit codes: 0 done (files may be skipped), 1 a file failed (an importer bug), 2 invalid flags (or a log
// without the scorer --scorer names: that log is not imported, the others are).
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { z } from "zod";
import { openDatabase } from "../lib/db/database";
import { createPrisma } from "../lib/db/prisma";
import { EVALUATION_NAME_MAX } from "../lib/evaluations/vocabulary";
import { importLogs } from "../lib/importers/import-logs";
import type { FileOutcome } from "../lib/importers/report";

const flagsSchema = z.strictObject({
  evaluation: z.string().trim().min(1, "--evaluation must not be empty").max(EVALUATION_NAME_MAX).optional(),
  json: z.string().min(1, "--json must name a file").optional(),
  threshold: z
    .string()
    .regex(/^-?\d+(\.\d+)?$/, "--threshold must be a number, e.g. 0.5")
    .transform(Number)
    .optional(),
  scorer: z.string().trim().min(1, "--scorer must name a scorer").max(200, "--scorer must be at most 200 characters").optional(),
});

function describeOutcome(outcome: FileOutcome): string {
  if (outcome.status === "skipped") return `skipped   ${outcome.file}: ${outcome.reason}`;
  if (outcome.status === "failed") return `FAILED    ${outcome.file}: ${outcome.error}`;
  const { log } = outcome;
  const lines = [
    `${outcome.status.padEnd(9)} ${outcome.file}: ${log.format}, ${log.runs.length} run(s) → ${outcome.evaluation}${outcome.status === "unchanged" ? " (already imported, nothing changed)" : ""}`,
  ];
  for (const note of log.notes) lines.push(`            ${note}`);
  if (log.unknownTools.length > 0) lines.push(`            unknown tools: ${log.unknownTools.join(", ")}`);
  for (const left of log.leftOut) lines.push(`            sample ${left.sample} left out: ${left.reason}`);
  return lines.join("\n");
}

async function main(): Promise<number> {
  let flags;
  let paths: string[];
  try {
    const { values, positionals } = parseArgs({
      args: process.argv.slice(2),
      strict: true,
      allowPositionals: true,
      options: { evaluation: { type: "string" }, json: { type: "string" }, threshold: { type: "string" }, scorer: { type: "string" } },
    });
    const parsed = flagsSchema.safeParse(values);
    if (!parsed.success) throw new Error(parsed.error.issues[0]!.message);
    if (positionals.length === 0) throw new Error("name at least one file or directory");
    flags = parsed.data;
    paths = positionals;
  } catch (error) {
    console.error(
      `import: ${(error as Error).message}\nusage: npm run import -- [--evaluation NAME] [--json REPORT] [--threshold X] [--scorer NAME] PATH...`,
    );
    return 2;
  }
  const database = await openDatabase((line) => console.error(`import: ${line}`));
  const db = createPrisma(database.url, 2);
  try {
    const report = await importLogs(db, paths, {
      evaluationName: flags.evaluation,
      threshold: flags.threshold,
      scorer: flags.scorer,
      onFile: (outcome) => console.error(describeOutcome(outcome)),
    });
    const json = `${JSON.stringify(report, null, 2)}\n`;
    console.log(json);
    if (flags.json) writeFileSync(flags.json, json);
    if (report.failed.length > 0) return 1;
    const withoutScorer = report.skipped.filter((s) => s.field === "scorer");
    if (withoutScorer.length > 0) {
      console.error(`import: --scorer ${flags.scorer}: ${withoutScorer.length} log(s) have no such scorer and were not imported`);
      return 2;
    }
    return 0;
  } finally {
    await db.$disconnect();
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`import: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  },
);

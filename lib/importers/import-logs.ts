// The import use case behind `npm run import` (and the upload route): files and directories →
// runs stored through the evaluations' own ingestion (createEvaluation, ingestRuns). A bad file is
// skipped or failed on its own and the rest proceed; a file's runs are validated before any is
// written, so nothing partial is stored for a file; importing a file again finds its runs unchanged.
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import type { Db } from "../db/prisma";
import { createEvaluation } from "../evaluations/create-evaluation";
import { ingestRuns } from "../evaluations/ingest";
import { EVALUATION_NAME_MAX, MAX_RUNS_PER_BATCH, runRecordSchema } from "../evaluations/schemas";
import { SkippedLog, firstIssue, type ImportedLog } from "./imported-log";
import type { InspectOptions } from "./inspect";
import { importLogFile } from "./log-file";
import { emptyImportReport, type ImportReport } from "./report";


export type FileOutcome =
  | { file: string; status: "imported" | "unchanged"; log: ImportedLog; evaluation: string }
  | { file: string; status: "skipped"; reason: string }
  | { file: string; status: "failed"; error: string };

export interface ImportOptions extends InspectOptions {
  /** Every run goes to this evaluation (found by name, or created) instead of each log's own. */
  evaluationName?: string;
  createdById?: string | null;
  /** Told of each file as it is done. */
  onFile?: (outcome: FileOutcome) => void;
}

/** Extensions looked for inside directories; a file named on its own is read whatever its name. */
const LOG_EXTENSIONS = /\.(json|eval)$/i;

/** The files under each path, recursively, in a stable order; a path that does not exist is reported as skipped. */
async function filesOf(paths: readonly string[], missing: (file: string) => void): Promise<string[]> {
  const files: string[] = [];
  const walk = async (dir: string) => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile() && LOG_EXTENSIONS.test(entry.name)) files.push(full);
    }
  };
  for (const given of paths) {
    const info = await stat(given).catch(() => null);
    if (!info) missing(given);
    else if (info.isDirectory()) await walk(given);
    else files.push(given);
  }
  return files;
}

/** Imports every log under `paths`; never stops at a bad file. */
export async function importLogs(db: Db, paths: readonly string[], options: ImportOptions = {}): Promise<ImportReport> {
  const report = emptyImportReport();
  const evaluations = new Map<string, { id: string; name: string; runs: number }>();
  const done = (outcome: FileOutcome) => {
    report.files += 1;
    if (outcome.status === "skipped") report.skipped.push({ file: outcome.file, reason: outcome.reason });
    else if (outcome.status === "failed") report.failed.push({ file: outcome.file, error: outcome.error });
    else {
      report[outcome.status] += 1;
      report.runs += outcome.log.runs.length;
    }
    options.onFile?.(outcome);
  };
  const files = await filesOf(paths, (file) => done({ file, status: "skipped", reason: "no such file or directory" }));

  const evaluationFor = async (log: ImportedLog) => {
    // A name made from a long path or task name is cut to the limit an evaluation's name has.
    const name = (options.evaluationName ?? log.evaluation.name).slice(0, EVALUATION_NAME_MAX);
    let evaluation = evaluations.get(name);
    if (!evaluation) {
      const existing = await db.evaluation.findFirst({ where: { name }, orderBy: { createdAt: "asc" }, select: { id: true } });
      const id = existing?.id ?? (await createEvaluation(db, { ...log.evaluation, name }, options.createdById ?? null));
      evaluation = { id, name, runs: 0 };
      evaluations.set(name, evaluation);
    }
    return evaluation;
  };

  for (const file of files) {
    let log: ImportedLog;
    try {
      log = await importLogFile(file, options);
    } catch (error) {
      done(error instanceof SkippedLog ? { file, status: "skipped", reason: error.message } : { file, status: "failed", error: (error as Error).stack ?? String(error) });
      continue;
    }
    try {
      // An importer that makes a run the schema refuses has a bug: nothing of the file is written.
      const refused = log.runs.map((run) => runRecordSchema.safeParse(run)).find((parsed) => !parsed.success);
      if (refused) throw new Error(`the importer made a run the schema refuses: ${firstIssue(refused.error!)}`);
      const evaluation = await evaluationFor(log);
      let changed = false;
      for (let start = 0; start < log.runs.length; start += MAX_RUNS_PER_BATCH) {
        const results = await ingestRuns(db, evaluation.id, log.runs.slice(start, start + MAX_RUNS_PER_BATCH));
        const error = results.find((r) => r.status === "error");
        if (error) throw new Error(`ingestion refused run ${error.externalId}: ${error.error?.message}`);
        changed ||= results.some((r) => r.status !== "unchanged");
      }
      evaluation.runs += log.runs.length;
      done({ file, status: changed ? "imported" : "unchanged", log, evaluation: evaluation.name });
    } catch (error) {
      done({ file, status: "failed", error: (error as Error).message });
    }
  }
  report.evaluations = [...evaluations.values()];
  return report;
}

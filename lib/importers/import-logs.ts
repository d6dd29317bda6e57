// The import use case behind `npm run import` (and the upload route): files and directories →
// runs stored through the evaluations' own ingestion (createEvaluation, ingestRuns), in batches
// (import-batcher.ts). A bad file is skipped or failed on its own and the rest proceed. Files are
// read a few at a time ahead of the writer.
import { readdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { Db } from "../db/prisma";
import { ImportBatcher, type BatcherOptions } from "./import-batcher";
import { SkippedLog, type ImportedLog } from "./imported-log";
import { UnknownScorer, type InspectOptions } from "./inspect";
import { type LogBundle } from "./log-archive";
import { readLogFile } from "./log-file";
import { addOutcome, emptyImportReport, type FileOutcome, type ImportReport } from "./report";

export interface ImportOptions extends InspectOptions, BatcherOptions {
  /** Told of each file as it is done. */
  onFile?: (outcome: FileOutcome) => void;
}

/** Extensions looked for inside directories; a file named on its own is read whatever its name. */
const LOG_EXTENSIONS = /\.(json|eval)$/i;
/** Files read ahead of the writer: their reads overlap, and overlap the writer's transaction. */
const READ_AHEAD = 16;

/** A path to import, or a file named otherwise in the report (an upload, stored under a temporary name). */
export type ImportPath = string | { path: string; name: string };

/** The files under each path, recursively, in a stable order; a path that does not exist is reported as skipped. */
async function filesOf(paths: readonly ImportPath[], missing: (file: string) => void): Promise<{ path: string; name: string }[]> {
  const files: { path: string; name: string }[] = [];
  const walk = async (dir: string) => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile() && LOG_EXTENSIONS.test(entry.name)) files.push({ path: full, name: full });
    }
  };
  for (const given of paths) {
    const { path: file, name } = typeof given === "string" ? { path: given, name: given } : given;
    const info = await stat(file).catch(() => null);
    if (!info) missing(name);
    else if (info.isDirectory()) await walk(file);
    else files.push({ path: file, name });
  }
  return files;
}

type Parsed = { file: string; log: ImportedLog } | { file: string; outcome: FileOutcome } | { file: string; bundle: LogBundle };

/** `file` is where to read it, `name` how the report names it. */
async function parseFile(
  { path: file, name }: { path: string; name: string },
  options: InspectOptions,
  inBundle: boolean,
): Promise<Parsed> {
  try {
    const read = await readLogFile(file, options, name);
    if ("dir" in read) {
      if (!inBundle) return { file: name, bundle: read };
      await rm(read.dir, { recursive: true, force: true });
      throw new SkippedLog("a zip of logs inside a zip of logs: unpack the outer one, or upload the inner one on its own");
    }
    const log = read;
    // The importers answer runs their schema parsed; two with one id would be stored as one, and the second refused after the first was written.
    const ids = new Set<string>();
    const twice = log.runs.find((run) => ids.size === ids.add(run.externalId).size);
    if (twice) throw new SkippedLog(`the log holds run ${twice.externalId} twice (a sample and epoch repeated): fix or split the log`);
    return { file: name, log };
  } catch (error) {
    return {
      file: name,
      outcome:
        error instanceof SkippedLog
          ? { file: name, status: "skipped", reason: error.message, ...(error instanceof UnknownScorer && { field: error.field }) }
          : { file: name, status: "failed", error: (error as Error).stack ?? String(error) },
    };
  }
}

/**
 * Each item's read, `ahead` of them under way at once (their reads overlap, and overlap the writer's
 * transaction), answered in the items' order.
 */
async function* readAhead<T, R>(items: readonly T[], read: (item: T) => Promise<R>, ahead: number): AsyncGenerator<R> {
  const reads: (Promise<R> | undefined)[] = [];
  for (let i = 0; i < Math.min(ahead, items.length); i++) reads[i] = read(items[i]!);
  for (let i = 0; i < items.length; i++) {
    const result = await reads[i]!;
    reads[i] = undefined;
    if (i + ahead < items.length) reads[i + ahead] = read(items[i + ahead]!);
    yield result;
  }
}

/** The files in order, read ahead of the batcher; a zip of logs is unpacked and its logs imported in its place. */
async function importFiles(
  files: readonly { path: string; name: string }[],
  inBundle: boolean,
  options: InspectOptions,
  batcher: ImportBatcher,
  done: (outcome: FileOutcome) => void,
): Promise<void> {
  for await (const parsed of readAhead(files, (file) => parseFile(file, options, inBundle), READ_AHEAD)) {
    if ("outcome" in parsed) done(parsed.outcome);
    else if ("log" in parsed) await batcher.add(parsed.file, parsed.log);
    else {
      try {
        await importFiles(parsed.bundle.files, true, options, batcher, done);
        // Its files are read before they are removed; their runs may still wait for the writer, which needs only the runs.
      } finally {
        await rm(parsed.bundle.dir, { recursive: true, force: true });
      }
    }
  }
}

/** Imports every log under `paths`; never stops at a bad file. */
export async function importLogs(db: Db, paths: readonly ImportPath[], options: ImportOptions = {}): Promise<ImportReport> {
  const report = emptyImportReport();
  const done = (outcome: FileOutcome) => {
    addOutcome(report, outcome);
    options.onFile?.(outcome);
  };
  const files = await filesOf(paths, (file) => done({ file, status: "skipped", reason: "no such file or directory" }));
  const batcher = new ImportBatcher(db, options, report, done);
  await importFiles(files, false, options, batcher, done);
  report.evaluations = await batcher.finish();
  return report;
}

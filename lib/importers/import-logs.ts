// The import use case behind `npm run import` (and the upload route): files and directories →
// runs stored through the evaluations' own ingestion (createEvaluation, ingestRuns). A bad file is
// skipped or failed on its own and the rest proceed. Files are read a few at a time ahead of the
// writer, and the runs of consecutive files of one evaluation are stored together, one transaction
// per batch (the per-file transaction made 26 files/s; see README, bench:import). A file's runs
// are never split across batches, and a batch that the database refuses is stored again file by
// file, so nothing partial is stored for a file; importing a file again finds its runs unchanged.
import { readdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { Db } from "../db/prisma";
import { DomainError } from "../errors";
import { createEvaluation, EvaluationNameTakenError } from "../evaluations/create-evaluation";
import { getEvaluation } from "../evaluations/read/get-evaluation";
import { classesToAdopt } from "../evaluations/policy";
import { setEffectPolicy } from "../evaluations/policy-recompute/set-effect-policy";
import { ingestRuns } from "../evaluations/ingest/ingest-runs";
import { recordImportedTraces, UnlinkedRunsError } from "../evaluations/record-traces/record-traces";
import { EVALUATION_NAME_MAX, MAX_RUNS_PER_BATCH } from "../evaluations/vocabulary";
import { findUnstorable, truncateText } from "../http/storable";
import { SkippedLog, type ImportedLog } from "./imported-log";
import { UnknownScorer, type InspectOptions } from "./inspect";
import { readLogFile, type LogBundle } from "./log-file";
import { storeHarnessMetrics } from "../evaluations/harness-metrics";
import { storeLabellingScorers } from "../evaluations/read/scorer-rates";
import { runsHeldElsewhere } from "./elsewhere";
import { addElsewhere, emptyImportReport, type ImportReport } from "./report";

export type FileOutcome =
  | { file: string; status: "imported" | "unchanged"; log: ImportedLog; evaluation: string }
  | { file: string; status: "skipped"; reason: string; field?: string }
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
/** Files read ahead of the writer: their reads overlap, and overlap the writer's transaction. */
const READ_AHEAD = 16;
/** Runs held for writing across all evaluations before every batch is stored. */
const MAX_PENDING_RUNS = 2 * MAX_RUNS_PER_BATCH;

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

interface Evaluation {
  id: string;
  name: string;
  runs: number;
  /** The tools whose importer class was offered to it already (by this import). */
  offered: Set<string>;
}

/** The files waiting to be stored in one evaluation. */
interface Batch {
  evaluation: Evaluation;
  files: { file: string; log: ImportedLog }[];
  externalIds: Set<string>;
  runs: number;
}

/** Imports every log under `paths`; never stops at a bad file. */
export async function importLogs(db: Db, paths: readonly ImportPath[], options: ImportOptions = {}): Promise<ImportReport> {
  const report = emptyImportReport();
  const evaluations = new Map<string, Evaluation>();
  const done = (outcome: FileOutcome) => {
    report.files += 1;
    if (outcome.status === "skipped")
      report.skipped.push({ file: outcome.file, reason: outcome.reason, ...(outcome.field && { field: outcome.field }) });
    else if (outcome.status === "failed") report.failed.push({ file: outcome.file, error: outcome.error });
    else {
      report[outcome.status] += 1;
      report.runs += outcome.log.runs.length;
      if (outcome.log.incomplete) report.incomplete.push({ file: outcome.file, ...outcome.log.incomplete });
      if (outcome.log.unlabelled) report.unlabelled.push({ file: outcome.file, ...outcome.log.unlabelled });
    }
    options.onFile?.(outcome);
  };
  const files = await filesOf(paths, (file) => done({ file, status: "skipped", reason: "no such file or directory" }));

  const evaluationFor = async (log: ImportedLog) => {
    // A name made from a long path or task name is cut to the limit an evaluation's name has, and
    // trimmed as the API trims it: names are unique, compared exactly.
    const name = truncateText(options.evaluationName ?? log.evaluation.name, EVALUATION_NAME_MAX).trim();
    let evaluation = evaluations.get(name);
    if (!evaluation) {
      // What the log says of its evaluation is stored as the API would store it, or the file fails naming the field.
      const unstorable = findUnstorable({ ...log.evaluation, name });
      if (unstorable) throw new Error(`the log's evaluation ${unstorable.path.join(".")} ${unstorable.message}`);
      const existing = await db.evaluation.findUnique({ where: { name }, select: { id: true } });
      // Another import may create the name between the lookup and the insert: its evaluation is this one.
      let created = false;
      const id =
        existing?.id ??
        (await createEvaluation(db, { ...log.evaluation, name }, options.createdById ?? null).then(
          (made) => ((created = true), made),
          (error: unknown) => {
            if (error instanceof EvaluationNameTakenError) return error.existing.id;
            throw error;
          },
        ));
      evaluation = { id, name, runs: 0, offered: new Set(created ? Object.keys(log.evaluation.effectPolicy?.tools ?? {}) : []) };
      evaluations.set(name, evaluation);
    }
    await adoptImporterClasses(evaluation, log);
    return evaluation;
  };

  /**
   * An evaluation that existed before the log (named on the form, or an earlier import's) keeps its
   * policy, and gains the importer's classes for the tools that policy leaves unclassified, as a new
   * version the report names: imported runs keep the classes the importer knows (issue 26 item 2).
   */
  const adoptImporterClasses = async (evaluation: Evaluation, log: ImportedLog) => {
    const offered = log.evaluation.effectPolicy?.tools ?? {};
    const unseen = Object.keys(offered).filter((tool) => !evaluation.offered.has(tool));
    if (unseen.length === 0) return;
    for (const tool of unseen) evaluation.offered.add(tool);
    for (let attempt = 1; ; attempt++) {
      const current = await getEvaluation(db, evaluation.id);
      if (!current) throw new Error(`evaluation ${evaluation.name} was deleted while the import ran`);
      // From the latest version saved: one still being recomputed is the one the next builds on.
      const latest = current.pendingPolicy ?? { version: current.effectPolicyVersion, policy: current.effectPolicy };
      const adopted = classesToAdopt(latest.policy, { tools: Object.fromEntries(unseen.map((tool) => [tool, offered[tool]!])) });
      if (Object.keys(adopted).length === 0) return;
      try {
        const { version } = await setEffectPolicy(
          db,
          evaluation.id,
          { tools: { ...latest.policy.tools, ...adopted }, baseVersion: latest.version },
          options.createdById ?? null,
        );
        report.policyVersions.push({ evaluation: evaluation.name, version, adopted });
        return;
      } catch (error) {
        // Someone saved a version meanwhile: adopt against theirs.
        if (attempt < 3 && error instanceof DomainError && error.code === "edit_conflict") continue;
        throw error;
      }
    }
  };

  /** Stores one batch; its files are reported once it is. A batch the database refuses is stored again file by file, so that only the bad file fails. */
  const store = async (batch: Batch) => {
    const results = await ingestRuns(
      db,
      batch.evaluation.id,
      batch.files.flatMap((f) => f.log.runs),
      { traces: "caller" },
    ).catch((error: Error) => error);
    if (results instanceof Error || results.some((r) => r.status === "error")) {
      if (batch.files.length > 1) {
        for (const one of batch.files) await store({ ...batch, files: [one], runs: one.log.runs.length });
        return;
      }
      const [{ file }] = batch.files as [Batch["files"][number]];
      const refused = results instanceof Error ? results.message : results.find((r) => r.status === "error")!;
      return done({
        file,
        status: "failed",
        error: typeof refused === "string" ? refused : `ingestion refused run ${refused.externalId}: ${refused.error?.message}`,
      });
    }
    // The batch's call sequences into the trace library; after the ingest, so its COPY path stays as
    // fast as it is, and here rather than in a job, so that an import where no worker runs (the CLI)
    // ends with its traces recorded.
    // Runs it cannot link are stored: their files are reported failed, and importing them again links them.
    try {
      await recordImportedTraces(db, batch.evaluation.id);
    } catch (error) {
      if (!(error instanceof UnlinkedRunsError)) throw error;
      for (const { file } of batch.files) done({ file, status: "failed", error: `runs stored, traces not recorded: ${error.message}` });
      return;
    }
    // What the harness reported itself for each log, beside the runs (idempotent: a log imported again replaces its figures).
    await storeHarnessMetrics(
      db,
      batch.evaluation.id,
      batch.files.flatMap((f) => f.log.harnessMetrics ?? []),
    );
    await storeLabellingScorers(
      db,
      batch.evaluation.id,
      batch.files.flatMap((f) => (f.log.labellingScorer ? [f.log.labellingScorer] : [])),
    );
    const stored = batch.files.flatMap((f) => f.log.runs.map((run) => run.externalId));
    report.elsewhere = addElsewhere(report.elsewhere, await runsHeldElsewhere(db, batch.evaluation, stored));
    const changed = new Set(results.filter((r) => r.status !== "unchanged").map((r) => r.externalId));
    for (const { file, log } of batch.files) {
      batch.evaluation.runs += log.runs.length;
      done({
        file,
        status: log.runs.some((run) => changed.has(run.externalId)) ? "imported" : "unchanged",
        log,
        evaluation: batch.evaluation.name,
      });
    }
  };

  // One batch is written while the next files are read; batches are written one at a time.
  const pending = new Map<string, Batch>();
  let pendingRuns = 0;
  let writing: Promise<void> = Promise.resolve();
  const flush = async (batch: Batch) => {
    pending.delete(batch.evaluation.name);
    pendingRuns -= batch.runs;
    await writing;
    writing = store(batch);
  };

  const add = async (file: string, log: ImportedLog) => {
    let evaluation: Evaluation;
    try {
      evaluation = await evaluationFor(log);
    } catch (error) {
      return done({ file, status: "failed", error: (error as Error).message });
    }
    let batch = pending.get(evaluation.name);
    // A run sent twice in one batch is refused: a file that repeats a pending run waits for the next batch.
    if (batch && (batch.runs + log.runs.length > MAX_RUNS_PER_BATCH || log.runs.some((run) => batch!.externalIds.has(run.externalId)))) {
      await flush(batch);
      batch = undefined;
    }
    if (!batch) {
      batch = { evaluation, files: [], externalIds: new Set(), runs: 0 };
      pending.set(evaluation.name, batch);
    }
    batch.files.push({ file, log });
    for (const run of log.runs) batch.externalIds.add(run.externalId);
    batch.runs += log.runs.length;
    pendingRuns += log.runs.length;
    // Past the cap, the batch waiting longest is written (while the next files are read).
    if (pendingRuns > MAX_PENDING_RUNS) await flush(pending.values().next().value!);
  };

  /** The files in order, READ_AHEAD of them read ahead; a zip of logs is unpacked and its logs imported in its place. */
  const importFiles = async (list: readonly { path: string; name: string }[], inBundle: boolean) => {
    const reads: (Promise<Parsed> | undefined)[] = [];
    const read = (i: number) => (reads[i] = parseFile(list[i]!, options, inBundle));
    for (let i = 0; i < Math.min(READ_AHEAD, list.length); i++) read(i);
    for (let i = 0; i < list.length; i++) {
      const parsed = await reads[i]!;
      reads[i] = undefined;
      if (i + READ_AHEAD < list.length) read(i + READ_AHEAD);
      if ("outcome" in parsed) done(parsed.outcome);
      else if ("log" in parsed) await add(parsed.file, parsed.log);
      else {
        try {
          await importFiles(parsed.bundle.files, true);
          // Its files are read before they are removed; their runs may still wait for the writer, which needs only the runs.
        } finally {
          await rm(parsed.bundle.dir, { recursive: true, force: true });
        }
      }
    }
  };
  await importFiles(files, false);
  for (const waiting of [...pending.values()]) await flush(waiting);
  await writing;
  report.evaluations = [...evaluations.values()].map(({ id, name, runs }) => ({ id, name, runs }));
  return report;
}

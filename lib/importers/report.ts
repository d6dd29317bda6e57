// The import report (`npm run import`, `POST /api/v1/imports`, the upload page), and the sum of
// several: the upload page sends one file per request and shows one report at the end.
import { z } from "zod";
import { toolEntrySchema } from "../evaluations/effect-policy-schema";
import type { ImportedLog } from "./imported-log";

/** Exactly these fields. */
export const importReportSchema = z.strictObject({
  files: z.number().int(),
  imported: z.number().int(),
  unchanged: z.number().int(),
  /** Not importable, with a reason a person can act on. */
  skipped: z.array(
    z.strictObject({
      file: z.string(),
      reason: z.string(),
      /** The import's option the file was refused for (`scorer`: the log has no scorer of that name). */
      field: z.string().optional(),
    }),
  ),
  /** A bug in the importer: the file should have imported. */
  failed: z.array(z.strictObject({ file: z.string(), error: z.string() })),
  /** Imported, but the log holds fewer samples than it says it completed: how many, and which where it names them. */
  incomplete: z.array(
    z.strictObject({ file: z.string(), expected: z.number().int(), found: z.number().int(), missing: z.array(z.string()) }),
  ),
  /**
   * Runs imported without a label because their labelling scorer (the one named, else the first) recorded a value that is
   * no label (a dict, a list, text): by file, with the scorers whose values are readable, one of which the import may name.
   */
  unlabelled: z
    .array(z.strictObject({ file: z.string(), scorer: z.string(), runs: z.number().int(), readable: z.array(z.string()) }))
    .default([]),
  /** Runs in the imported and unchanged files. */
  runs: z.number().int(),
  evaluations: z.array(z.strictObject({ id: z.string(), name: z.string(), runs: z.number().int() })),
  /**
   * Effect-policy versions the import made: an evaluation that existed before the logs gained the
   * importer's classes for the tools its policy left unclassified (its own classes unchanged).
   */
  policyVersions: z.array(
    z.strictObject({ evaluation: z.string(), version: z.number().int(), adopted: z.record(z.string(), toolEntrySchema) }),
  ),
  /**
   * Runs this import stored in one evaluation that another evaluation holds too, with the same content
   * (the same log imported under two names, or once named and once by default): how many, per pair.
   */
  elsewhere: z.array(
    z.strictObject({
      evaluationId: z.string(),
      evaluation: z.string(),
      alsoInId: z.string(),
      alsoIn: z.string(),
      runs: z.number().int(),
    }),
  ),
});
export type ImportReport = z.infer<typeof importReportSchema>;

export const emptyImportReport = (): ImportReport => ({
  files: 0,
  imported: 0,
  unchanged: 0,
  skipped: [],
  failed: [],
  incomplete: [],
  unlabelled: [],
  runs: 0,
  evaluations: [],
  policyVersions: [],
  elsewhere: [],
});

/** What became of one file: imported (or found unchanged) into an evaluation, skipped with a reason, or failed. */
export type FileOutcome =
  | { file: string; status: "imported" | "unchanged"; log: ImportedLog; evaluation: string }
  | { file: string; status: "skipped"; reason: string; field?: string }
  | { file: string; status: "failed"; error: string };

/** One file's outcome counted into the report (which it changes). */
export function addOutcome(report: ImportReport, outcome: FileOutcome): void {
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
}

/** Two lists as one, the runs of entries with one key added up (the inputs left as they were). */
function addRunsBy<T extends { runs: number }>(a: readonly T[], b: readonly T[], key: (entry: T) => string): T[] {
  const merged = new Map(a.map((e) => [key(e), { ...e }]));
  for (const e of b) {
    const seen = merged.get(key(e));
    if (seen) seen.runs += e.runs;
    else merged.set(key(e), { ...e });
  }
  return [...merged.values()];
}

/** Two reports as one: counts added, lists joined, an evaluation's runs added up under its id. */
export function addImportReports(a: ImportReport, b: ImportReport): ImportReport {
  return {
    files: a.files + b.files,
    imported: a.imported + b.imported,
    unchanged: a.unchanged + b.unchanged,
    skipped: [...a.skipped, ...b.skipped],
    failed: [...a.failed, ...b.failed],
    incomplete: [...a.incomplete, ...b.incomplete],
    unlabelled: [...a.unlabelled, ...b.unlabelled],
    runs: a.runs + b.runs,
    evaluations: addRunsBy(a.evaluations, b.evaluations, (e) => e.id),
    policyVersions: [...a.policyVersions, ...b.policyVersions],
    elsewhere: addElsewhere(a.elsewhere, b.elsewhere),
  };
}

/** Two lists of runs held elsewhere as one: a pair's runs added up. */
export const addElsewhere = (a: ImportReport["elsewhere"], b: ImportReport["elsewhere"]) =>
  addRunsBy(a, b, (e) => `${e.evaluationId} ${e.alsoInId}`);

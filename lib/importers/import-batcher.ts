// The import's writer: the runs of consecutive files of one evaluation are stored together, one
// transaction per batch rather than per file (bench:import measures it), one batch written while the
// next files are read. A file's runs are never split across batches, and a batch that the database
// refuses is stored again file by file, so nothing partial is stored for a file; importing a file
// again finds its runs unchanged.
import { z } from "zod";
import { poolOf, type Db } from "../db/prisma";
import { rowsOf } from "../db/rows";
import { poolSql, type SqlClient } from "../db/sql-transaction";
import { DomainError } from "../errors";
import { createEvaluation, EvaluationNameTakenError } from "../evaluations/manage/create-evaluation";
import { getEvaluation } from "../evaluations/read/get-evaluation";
import { storeHarnessMetrics } from "../evaluations/harness-metrics";
import { ingestRuns } from "../evaluations/ingest/ingest-runs";
import { classesToAdopt } from "../evaluations/policy";
import { recordImportedTraces, UnlinkedRunsError } from "../evaluations/record-traces/record-traces";
import { EVALUATION_NAME_MAX, MAX_RUNS_PER_BATCH } from "../evaluations/vocabulary";
import type { IngestResult } from "../evaluations/run-record-schema";
import { storeLabellingScorers } from "../evaluations/read/scorer-rates";
import { setEffectPolicy } from "../evaluations/policy-recompute/set-effect-policy";
import { findUnstorable, truncateText } from "../http/storable";
import { runsHeldElsewhere } from "./elsewhere";
import type { ImportedLog } from "./imported-log";
import { addElsewhere, type FileOutcome, type ImportReport } from "./report";

/** Runs held for writing across all evaluations before every batch is stored. */
const MAX_PENDING_RUNS = 2 * MAX_RUNS_PER_BATCH;
/** Tries at adopting the importer's classes when someone else saves a policy version meanwhile. */
const ADOPT_ATTEMPTS = 3;

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

export interface BatcherOptions {
  /** Every run goes to this evaluation (found by name, or created) instead of each log's own. */
  evaluationName?: string;
  createdById?: string | null;
}

/**
 * Takes the logs in the order they were read (add), and stores them in batches, one at a time;
 * finish() stores what is left. Each file's outcome goes to `done` once its batch is stored; the
 * policy versions made and the runs held elsewhere go to `report`.
 */
export class ImportBatcher {
  private readonly evaluations = new Map<string, Evaluation>();
  private readonly pending = new Map<string, Batch>();
  private pendingRuns = 0;
  private writing: Promise<void> = Promise.resolve();
  /** Raw SQL on node-postgres for the statements of every batch: Prisma's client spent ~2 ms of this thread's CPU on each. */
  private readonly sql: SqlClient;

  constructor(
    private readonly db: Db,
    private readonly options: BatcherOptions,
    private readonly report: ImportReport,
    private readonly done: (outcome: FileOutcome) => void,
  ) {
    this.sql = poolSql(poolOf(db));
  }

  /** One file's log into its evaluation's batch; a full batch is written (while the next files are read). */
  async add(file: string, log: ImportedLog): Promise<void> {
    let evaluation: Evaluation;
    try {
      evaluation = await this.evaluationFor(log);
    } catch (error) {
      return this.done({ file, status: "failed", error: (error as Error).message });
    }
    let batch = this.pending.get(evaluation.name);
    // A run sent twice in one batch is refused: a file that repeats a pending run waits for the next batch.
    if (batch && (batch.runs + log.runs.length > MAX_RUNS_PER_BATCH || log.runs.some((run) => batch!.externalIds.has(run.externalId)))) {
      await this.flush(batch);
      batch = undefined;
    }
    if (!batch) {
      batch = { evaluation, files: [], externalIds: new Set(), runs: 0 };
      this.pending.set(evaluation.name, batch);
    }
    batch.files.push({ file, log });
    for (const run of log.runs) batch.externalIds.add(run.externalId);
    batch.runs += log.runs.length;
    this.pendingRuns += log.runs.length;
    // Past the cap, the batch waiting longest is written.
    if (this.pendingRuns > MAX_PENDING_RUNS) await this.flush(this.pending.values().next().value!);
  }

  /** Stores every batch still waiting; answers the evaluations the import wrote to, with their runs. */
  async finish(): Promise<ImportReport["evaluations"]> {
    for (const waiting of [...this.pending.values()]) await this.flush(waiting);
    await this.writing;
    return [...this.evaluations.values()].map(({ id, name, runs }) => ({ id, name, runs }));
  }

  /** Batches are written one at a time: this one after the one being written. */
  private async flush(batch: Batch): Promise<void> {
    this.pending.delete(batch.evaluation.name);
    this.pendingRuns -= batch.runs;
    await this.writing;
    this.writing = this.store(batch);
  }

  /** The evaluation a log's runs go to: found by name, or created from what the log says of it. */
  private async evaluationFor(log: ImportedLog): Promise<Evaluation> {
    // A name made from a long path or task name is cut to the limit an evaluation's name has, and
    // trimmed as the API trims it: names are unique, compared exactly.
    const name = truncateText(this.options.evaluationName ?? log.evaluation.name, EVALUATION_NAME_MAX).trim();
    let evaluation = this.evaluations.get(name);
    if (!evaluation) {
      // What the log says of its evaluation is stored as the API would store it, or the file fails naming the field.
      const unstorable = findUnstorable({ ...log.evaluation, name });
      if (unstorable) throw new Error(`the log's evaluation ${unstorable.path.join(".")} ${unstorable.message}`);
      const [existing] = rowsOf(
        z.object({ id: z.string() }),
        await this.sql.$queryRaw`SELECT id::text FROM evaluations WHERE name = ${name}`,
      );
      // Another import may create the name between the lookup and the insert: its evaluation is this one.
      let created = false;
      const id =
        existing?.id ??
        (await createEvaluation(this.db, { ...log.evaluation, name }, this.options.createdById ?? null).then(
          (made) => ((created = true), made),
          (error: unknown) => {
            if (error instanceof EvaluationNameTakenError) return error.existing.id;
            throw error;
          },
        ));
      evaluation = { id, name, runs: 0, offered: new Set(created ? Object.keys(log.evaluation.effectPolicy?.tools ?? {}) : []) };
      this.evaluations.set(name, evaluation);
    }
    await this.adoptImporterClasses(evaluation, log);
    return evaluation;
  }

  /**
   * An evaluation that existed before the log (named on the form, or an earlier import's) keeps its
   * policy, and gains the importer's classes for the tools that policy leaves unclassified, as a new
   * version the report names: imported runs keep the classes the importer knows.
   */
  private async adoptImporterClasses(evaluation: Evaluation, log: ImportedLog): Promise<void> {
    const offered = log.evaluation.effectPolicy?.tools ?? {};
    const unseen = Object.keys(offered).filter((tool) => !evaluation.offered.has(tool));
    if (unseen.length === 0) return;
    for (const tool of unseen) evaluation.offered.add(tool);
    for (let attempt = 1; ; attempt++) {
      const current = await getEvaluation(this.db, evaluation.id);
      if (!current) throw new Error(`evaluation ${evaluation.name} was deleted while the import ran`);
      // From the latest version saved: one still being recomputed is the one the next builds on.
      const latest = current.pendingPolicy ?? { version: current.effectPolicyVersion, policy: current.effectPolicy };
      const adopted = classesToAdopt(latest.policy, { tools: Object.fromEntries(unseen.map((tool) => [tool, offered[tool]!])) });
      if (Object.keys(adopted).length === 0) return;
      try {
        const { version } = await setEffectPolicy(
          this.db,
          evaluation.id,
          { tools: { ...latest.policy.tools, ...adopted }, baseVersion: latest.version },
          this.options.createdById ?? null,
        );
        this.report.policyVersions.push({ evaluation: evaluation.name, version, adopted });
        return;
      } catch (error) {
        // Someone saved a version meanwhile: adopt against theirs.
        if (attempt < ADOPT_ATTEMPTS && error instanceof DomainError && error.code === "edit_conflict") continue;
        throw error;
      }
    }
  }

  /** Stores one batch; its files are reported once it is. */
  private async store(batch: Batch): Promise<void> {
    const results = await ingestRuns(
      this.db,
      batch.evaluation.id,
      batch.files.flatMap((f) => f.log.runs),
      { traces: "caller" },
    ).catch((error: Error) => error);
    if (results instanceof Error || results.some((r) => r.status === "error")) return this.storeFileByFile(batch, results);
    if (!(await this.recordTraces(batch))) return;
    await this.storeHarnessFigures(batch);
    const stored = batch.files.flatMap((f) => f.log.runs.map((run) => run.externalId));
    this.report.elsewhere = addElsewhere(this.report.elsewhere, await runsHeldElsewhere(this.sql, batch.evaluation, stored));
    this.reportStored(batch, results);
  }

  /** A batch the database refused is stored again file by file, so that only the bad file fails. */
  private async storeFileByFile(batch: Batch, results: Error | IngestResult[]): Promise<void> {
    if (batch.files.length > 1) {
      for (const one of batch.files) await this.store({ ...batch, files: [one], runs: one.log.runs.length });
      return;
    }
    const [{ file }] = batch.files as [Batch["files"][number]];
    const refused = results instanceof Error ? results.message : results.find((r) => r.status === "error")!;
    this.done({
      file,
      status: "failed",
      error: typeof refused === "string" ? refused : `ingestion refused run ${refused.externalId}: ${refused.error?.message}`,
    });
  }

  /**
   * The batch's call sequences into the trace library; after the ingest, so its COPY path stays as
   * fast as it is, and here rather than in a job, so that an import where no worker runs (the CLI)
   * ends with its traces recorded. Runs it cannot link are stored: their files are reported failed
   * (false), and importing them again links them.
   */
  private async recordTraces(batch: Batch): Promise<boolean> {
    try {
      await recordImportedTraces(this.db, batch.evaluation.id);
      return true;
    } catch (error) {
      if (!(error instanceof UnlinkedRunsError)) throw error;
      for (const { file } of batch.files)
        this.done({ file, status: "failed", error: `runs stored, traces not recorded: ${error.message}` });
      return false;
    }
  }

  /** What the harness reported itself for each log, beside the runs (idempotent: a log imported again replaces its figures). */
  private async storeHarnessFigures(batch: Batch): Promise<void> {
    await storeHarnessMetrics(
      this.sql,
      batch.evaluation.id,
      batch.files.flatMap((f) => f.log.harnessMetrics ?? []),
    );
    await storeLabellingScorers(
      this.sql,
      batch.evaluation.id,
      batch.files.flatMap((f) => (f.log.labellingScorer ? [f.log.labellingScorer] : [])),
    );
  }

  /** Each file of a stored batch: imported when any of its runs changed, unchanged otherwise. */
  private reportStored(batch: Batch, results: readonly IngestResult[]): void {
    const changed = new Set(results.filter((r) => r.status !== "unchanged").map((r) => r.externalId));
    for (const { file, log } of batch.files) {
      batch.evaluation.runs += log.runs.length;
      this.done({
        file,
        status: log.runs.some((run) => changed.has(run.externalId)) ? "imported" : "unchanged",
        log,
        evaluation: batch.evaluation.name,
      });
    }
  }
}

// Ingestion of a batch of runs (POST /api/v1/evaluations/{id}/runs), in the order it happens:
//   1. validate.ts  each run parsed on its own (zod, storable, hashed): a bad run refuses only itself;
//   2. rows.ts      each valid run as its rows (its columns, finality from its record, its children);
//   3. store.ts     the good ones stored in one transaction, with one multi-row statement per table,
//                   idempotent on (evaluation, externalId) by a content hash (ON CONFLICT … WHERE the
//                   hash differs), and audited before commit (../audit/: finality from the record and
//                   any resolutions posted earlier, separation for the surfaces the batch touched).
// The runs' call sequences go into the trace library after the request, by a job committed with them.
import type { Db } from "../../db/prisma";
import { retryOnTransactionConflict, storeIsolatingRefusals } from "../../db/isolate-refusals";
import { notFound } from "../../errors";
import type { IngestResult } from "../run-record-schema";
import { writeRuns, type TracesBy } from "./write-runs";
import { validate } from "./validate";

export interface IngestOptions {
  /**
   * Who records the stored runs' call sequences in the trace library (lib/evaluations/record-traces/record-traces.ts): a
   * record_traces job the batch enqueues (the default; its key merges the jobs of batches that
   * arrive while one waits), or the caller, which calls recordImportedTraces itself (the importer,
   * which may run where no worker does).
   */
  traces?: TracesBy;
}

/**
 * Stores a batch of runs in an evaluation and answers one result per run, in order. Throws
 * notFound for an unknown evaluation. Runs that are valid are stored (or found unchanged)
 * together; a run that is not leaves nothing of itself. Should PostgreSQL still refuse a valid
 * run's data, that run alone is refused (`refused_by_database`) and the others are stored.
 */
export async function ingestRuns(
  db: Db,
  evaluationId: string,
  rawRuns: readonly unknown[],
  options: IngestOptions = {},
): Promise<IngestResult[]> {
  const { results, valid } = await validate(rawRuns);
  if (valid.length === 0) {
    if (!(await db.evaluation.findUnique({ where: { id: evaluationId }, select: { id: true } }))) throw notFound("evaluation");
    return results;
  }
  // Rows in externalId order, so that concurrent batches lock the same runs in the same order.
  valid.sort((a, b) => (a.run.externalId < b.run.externalId ? -1 : a.run.externalId > b.run.externalId ? 1 : 0));
  const traces = options.traces ?? "job";
  const { stored, refused } = await storeIsolatingRefusals(valid, (runs) =>
    retryOnTransactionConflict(() => writeRuns(db, evaluationId, runs, traces)),
  );
  const statusOf = new Map(stored.map((w) => [w.external_id, w.inserted ? ("created" as const) : ("updated" as const)]));
  for (const { index, run } of valid) results[index] = { externalId: run.externalId, status: statusOf.get(run.externalId) ?? "unchanged" };
  for (const { item, error } of refused) {
    const field = `runs.${item.index}`;
    results[item.index] = {
      externalId: item.run.externalId,
      status: "error",
      error: { code: "refused_by_database", message: `${field}: PostgreSQL refused this run (${error.code}: ${error.message})`, field },
    };
  }
  return results;
}

import { z } from "zod";
import type { SqlTx } from "../../db/sql-transaction";
import { addKeyedJob } from "../../jobs/queue";

/**
 * Records the call sequences of an evaluation's runs in the trace library (record-traces.ts),
 * after runs were ingested through the API; enqueued in the ingest's transaction. Idempotent: it
 * links whatever runs of the evaluation are still untraced, so one job covers every batch before it.
 */
export const RECORD_TRACES_JOB = "record_traces";
/** A trace job is retried this often (a lost connection, a deadlock) before graphile-worker gives up; the next ingest enqueues another. */
export const RECORD_TRACES_MAX_ATTEMPTS = 5;
export const recordTracesPayloadSchema = z.strictObject({ evaluationId: z.uuid() });
export type RecordTracesPayload = z.infer<typeof recordTracesPayloadSchema>;
/** The evaluation's trace job: batches ingested while one waits are merged into it; one running is followed by a new one. */
export const recordTracesJobKey = (evaluationId: string) => `record-traces:${evaluationId}`;

/** Enqueues the evaluation's record_traces job inside the caller's transaction (it runs once the runs it is for are committed); deduplicated by its key. */
export async function enqueueRecordTracesJob(tx: Pick<SqlTx, "$queryRaw">, evaluationId: string): Promise<void> {
  const payload: RecordTracesPayload = { evaluationId };
  await addKeyedJob(tx, RECORD_TRACES_JOB, payload, recordTracesJobKey(evaluationId), RECORD_TRACES_MAX_ATTEMPTS);
}

import { z } from "zod";
import { defineJob } from "../../jobs/job-definition";

/** The evaluation's trace job: batches ingested while one waits are merged into it; one running is followed by a new one. */
export const recordTracesJobKey = (evaluationId: string) => `record-traces:${evaluationId}`;

/**
 * Records the call sequences of an evaluation's runs in the trace library (record-traces.ts),
 * after runs were ingested through the API; enqueued in the ingest's transaction (it runs once the
 * runs it is for are committed). Idempotent: it links whatever runs of the evaluation are still
 * untraced, so one job covers every batch before it. Retried 5 times (a lost connection, a
 * deadlock) before graphile-worker gives up; the next ingest enqueues another.
 */
export const recordTracesJob = defineJob({
  name: "record_traces",
  payload: z.strictObject({ evaluationId: z.uuid() }),
  maxAttempts: 5,
  key: (payload) => recordTracesJobKey(payload.evaluationId),
});

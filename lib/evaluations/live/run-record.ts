// A live run's row and its record: the row as a write locks it, and the closed run's record remade
// from every event and stored through ingestion's own step (writeRunsIn) in the writer's transaction,
// so a crash at any point leaves the events and the audited run in step. The rules are timeline.ts's.
import { z } from "zod";
import type { CopyTx } from "../../db/sql-transaction";
import { rowsOf } from "../../db/rows";
import { writeRunsIn } from "../ingest/write-runs";
import { validRun } from "../ingest/validate";
import type { RunRecord } from "../run-record-schema";
import { liveEventSchema, LIVE_RUN_STATES, scoreLiveRunBodySchema, type LiveEvent } from "./live-run-schemas";
import { liveRunRecord, type LiveOutcome, type LiveRunHead } from "./timeline";

export const liveRunRow = z.object({
  id: z.string(),
  external_id: z.string(),
  task_id: z.string(),
  group_id: z.string().nullable(),
  attempt: z.number().nullable(),
  started_at: z.date(),
  opened_at: z.date(),
  state: z.enum(LIVE_RUN_STATES),
  expires_at: z.date(),
  timeout_seconds: z.number(),
  scored_at: z.date().nullable(),
  outcome: scoreLiveRunBodySchema.nullable(),
  clock_skew_events: z.number(),
  due: z.boolean(),
});
export type LiveRunRow = z.output<typeof liveRunRow>;

export const head = (row: LiveRunRow): LiveRunHead => ({
  externalId: row.external_id,
  taskId: row.task_id,
  groupId: row.group_id,
  attempt: row.attempt,
  startedAtMs: row.started_at.getTime(),
});

/** Every event of the run, in time order (ties in arrival order), as its record is made from them. */
export async function eventsOf(tx: CopyTx, liveRunId: string): Promise<LiveEvent[]> {
  return rowsOf(
    z.object({ body: liveEventSchema }),
    // A run's events are rows, or its first batch's array not yet moved (first-batch.ts): never both.
    await tx.$queryRaw`
      SELECT body FROM (
        SELECT body, at, id AS k FROM live_run_events WHERE live_run_id = ${liveRunId}::bigint
        UNION ALL
        SELECT e, (e->>'at')::timestamptz, n FROM live_runs, jsonb_array_elements(first_events::jsonb) WITH ORDINALITY AS x(e, n)
         WHERE id = ${liveRunId}::bigint
      ) AS events ORDER BY at, k`,
  ).map((r) => r.body);
}

export const outcomeOf = (row: LiveRunRow): LiveOutcome => {
  const outcome = row.outcome!;
  if (outcome.unscoredReason !== undefined || row.scored_at === null) return { unscoredReason: outcome.unscoredReason ?? "not scored" };
  return {
    scoredAtMs: row.scored_at.getTime(),
    endpointLabel: outcome.endpointLabel!,
    score: outcome.score,
    terminalLabel: outcome.terminalLabel,
    threshold: outcome.threshold,
    scoredOn: outcome.scoredOn,
  };
};

/** The closed run's record remade from all its events and stored as an ingested run's (created, updated, or unchanged). */
export async function storeRecord(tx: CopyTx, evaluationId: string, row: LiveRunRow): Promise<RunRecord> {
  const record = liveRunRecord(head(row), await eventsOf(tx, row.id), outcomeOf(row));
  await writeRunsIn(tx, evaluationId, [validRun(0, record)], "job");
  return record;
}

// The transaction every write of a live run runs in, and the run's row locked in it (every write of
// one live run is serialised on that row): a run found overdue as it is locked is expired and stored
// unscored first. The live-run use cases and the OTLP receiver (otel/receive.ts) share these.
import { z } from "zod";
import { poolOf, type Db } from "../../db/prisma";
import { retryOnTransactionConflict } from "../../db/isolate-refusals";
import { rowsOf } from "../../db/rows";
import { sqlTransaction, type CopyTx } from "../../db/sql-transaction";
import { conflict, DomainError, notFound } from "../../errors";
import { liveRunRow, storeRecord, type LiveRunRow } from "./run-record";

/** The transaction every write of a live run runs in, run again when PostgreSQL aborted it for a conflict. */
export const inTransaction = <T>(db: Db, work: (tx: CopyTx) => Promise<T>) =>
  retryOnTransactionConflict(() => sqlTransaction(poolOf(db), work));

/**
 * inTransaction for a write that may find its run overdue: the refusal `work` returns is thrown only
 * once the transaction has committed, so the expiry it stored stands (thrown inside, it would be rolled back with it).
 */
export async function inTransactionRefusingAfterCommit<T>(db: Db, work: (tx: CopyTx) => Promise<T | DomainError>): Promise<T> {
  const answer = await inTransaction(db, work);
  if (answer instanceof DomainError) throw answer;
  return answer;
}

export const expiredReason = (row: Pick<LiveRunRow, "timeout_seconds">) =>
  `not scored within ${row.timeout_seconds} s of opening (the evaluation's liveRunTimeoutSeconds)`;

export function closedConflict(row: LiveRunRow) {
  return row.state === "expired"
    ? conflict("live_run_expired", `live run ${row.external_id} was ${expiredReason(row)} and is stored unscored`, "externalId")
    : conflict(
        "live_run_scored",
        `live run ${row.external_id} is ${row.state === "scored" ? "scored" : "closed without a score"} already`,
        "externalId",
      );
}

/** The run's row, locked until the transaction ends (every write of one live run is serialised on it); null when there is none. */
export async function lockRun(tx: CopyTx, evaluationId: string, externalId: string): Promise<LiveRunRow | null> {
  const rows = rowsOf(
    liveRunRow,
    await tx.$queryRaw`
      SELECT id::text AS id, external_id, task_id, group_id, attempt, started_at, opened_at, state, expires_at, timeout_seconds, scored_at,
             outcome, clock_skew_events, (state = 'open' AND expires_at <= now()) AS due
        FROM live_runs WHERE evaluation_id = ${evaluationId}::uuid AND external_id = ${externalId} FOR UPDATE`,
  );
  return rows[0] ?? null;
}

/** The run's row, locked, with its timeout applied if it is overdue; 404 for an unknown evaluation or run. */
export async function lockOpenedRun(tx: CopyTx, evaluationId: string, externalId: string): Promise<LiveRunRow> {
  const row = await lockRun(tx, evaluationId, externalId);
  if (!row) {
    const evaluation = await tx.$queryRaw`SELECT 1 FROM evaluations WHERE id = ${evaluationId}::uuid`;
    if (rowsOf(z.unknown(), evaluation).length === 0) throw notFound("evaluation");
    throw notFound(`live run ${externalId}`, "externalId");
  }
  return row.due ? expire(tx, evaluationId, row) : row;
}

export async function expire(tx: CopyTx, evaluationId: string, row: LiveRunRow): Promise<LiveRunRow> {
  const outcome = { unscoredReason: expiredReason(row) };
  await tx.$executeRaw`
    UPDATE live_runs SET state = 'expired', outcome = ${JSON.stringify(outcome)}::jsonb, closed_at = now() WHERE id = ${row.id}::bigint`;
  const expired = { ...row, state: "expired" as const, outcome, due: false };
  await storeRecord(tx, evaluationId, expired);
  return expired;
}

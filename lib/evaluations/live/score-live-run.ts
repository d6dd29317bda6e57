// Scores a live run (or closes it unscored) and stores its record, answering its finality as the audit has it.
import { z } from "zod";
import { canonicalJson } from "../../content-hash";
import type { Db } from "../../db/prisma";
import { onlyRowOf } from "../../db/rows";
import type { CopyTx } from "../../db/sql-transaction";
import { DomainError } from "../../errors";
import { FINALITIES } from "../vocabulary";
import type { LiveRunState, ScoreLiveRunAnswer, ScoreLiveRunBody } from "./live-run-schemas";
import { openLiveRun } from "./open-live-run";
import { awaitRecorders } from "./recorders";
import { closedConflict, inTransactionRefusingAfterCommit, lockOpenedRun } from "./run-lock";
import { storeRecord, type LiveRunRow } from "./run-record";

/**
 * Scores the run (or closes it unscored) at `at`, the server's time when absent, and stores its
 * record; answers its finality as the audit has it. The same score sent again answers the same;
 * 409 for a run closed otherwise or stored unscored by its timeout (its expiry stored first).
 */
export async function scoreLiveRun(db: Db, evaluationId: string, externalId: string, body: ScoreLiveRunBody): Promise<ScoreLiveRunAnswer> {
  // What the run's recorders saw up to the score is waited for (bounded); past the bound the answer is never final.
  const awaiting = await awaitRecorders(db, evaluationId, externalId, body.at === undefined ? new Date() : new Date(body.at));
  const score = () =>
    inTransactionRefusingAfterCommit(db, async (tx) => {
      const row = await lockOpenedRun(tx, evaluationId, externalId);
      if (row.state !== "open") {
        if (row.state === "expired" || canonicalJson(row.outcome) !== canonicalJson(body)) return closedConflict(row);
        return finalityOf(tx, evaluationId, externalId);
      }
      await scoreIn(tx, evaluationId, row, body);
      return finalityOf(tx, evaluationId, externalId);
    });
  const answer = await score().catch(async (error: unknown) => {
    // A score may overtake its recorder: the run it names is opened (for the task of its name) and scored, not refused.
    if (!(error instanceof DomainError && error.kind === "not_found" && error.field === "externalId")) throw error;
    await openLiveRun(db, evaluationId, { externalId, taskId: externalId }).catch((refusal: unknown) => {
      if (!(refusal instanceof DomainError && ["live_run_conflict", "live_run_scored", "live_run_expired"].includes(refusal.code)))
        throw refusal;
    });
    return score();
  });
  if (awaiting.length === 0 || answer.finality === "unscored") return answer;
  return { finality: "unresolved", reason: "evidence_arriving", awaiting };
}

const scoredAtRow = z.tuple([z.object({ scored_at: z.date().nullable() })]);

/** Closes an open run the caller has locked with `body` (a score, or unscoredReason) and stores its record. */
export async function scoreIn(tx: CopyTx, evaluationId: string, row: LiveRunRow, body: ScoreLiveRunBody): Promise<void> {
  const state: LiveRunState = body.unscoredReason === undefined ? "scored" : "unscored";
  const [{ scored_at }] = scoredAtRow.parse(
    await tx.$queryRaw`
        UPDATE live_runs SET state = ${state}, outcome = ${canonicalJson(body)}::jsonb, closed_at = now(),
               scored_at = CASE WHEN ${state} = 'scored' THEN coalesce(${body.at ?? null}::timestamptz, now()) END
         WHERE id = ${row.id}::bigint RETURNING scored_at`,
  );
  await storeRecord(tx, evaluationId, { ...row, state, scored_at, outcome: body });
}

async function finalityOf(tx: CopyTx, evaluationId: string, externalId: string): Promise<ScoreLiveRunAnswer> {
  const run = onlyRowOf(
    z.object({
      finality: z.enum(FINALITIES),
      unresolved_reason: z.string().nullable(),
      unresolved_effect_id: z.string().nullable(),
      unresolved_tool: z.string().nullable(),
      unscored_reason: z.string().nullable(),
    }),
    await tx.$queryRaw`
      SELECT finality, unresolved_reason, unresolved_effect_id, unresolved_tool, unscored_reason
        FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid AND external_id = ${externalId}`,
  );
  const reason = run.unresolved_reason ?? run.unscored_reason;
  return {
    finality: run.finality,
    ...(reason !== null && { reason }),
    ...(run.unresolved_effect_id !== null && { effectId: run.unresolved_effect_id }),
    ...(run.unresolved_tool !== null && { tool: run.unresolved_tool }),
  };
}

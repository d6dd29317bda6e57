// What a run's page shows, read in one call: the evaluation, the stored run with a page of its
// transcript, its spans and its recorders; or, for a live run still open (no stored record yet), its
// events so far with its spans.
import type { Db } from "../../db/prisma";
import type { SqlClient } from "../../db/sql-transaction";
import { liveRunRecorders } from "../live/recorders";
import type { LiveRunRecorder } from "../live/live-run-schemas";
import { runSpans } from "./run-spans";
import type { StoredSpan } from "./span-timeline";
import { getEvaluationRun, type EvaluationRunDetail } from "./evaluation-run";
import { getEvaluation } from "./get-evaluation";
import { getLiveRun, type LiveRunView } from "./live-runs";
import type { EvaluationDetail } from "./read-boundary";
import { MESSAGES_PAGE, runMessages, type RunMessagesPage } from "./run-messages";

export type EvaluationRunPage =
  | {
      kind: "stored";
      evaluation: EvaluationDetail;
      run: EvaluationRunDetail;
      /** The page of the transcript from `messagesFrom`. */
      transcript: RunMessagesPage;
      spans: StoredSpan[];
      recorders: LiveRunRecorder[];
    }
  | { kind: "live"; evaluation: EvaluationDetail; live: LiveRunView; spans: StoredSpan[] };

/**
 * The run's page from its transcript's message `messagesFrom`; null for an unknown evaluation or run. Its reads are raw SQL on
 * `sql` (the web process's getSql: node-postgres without Prisma's client in between); a live run's events are read on `db`.
 */
export async function loadEvaluationRunPage(
  db: Db,
  sql: SqlClient,
  evaluationId: string,
  externalId: string,
  messagesFrom: number,
): Promise<EvaluationRunPage | null> {
  const [evaluation, run, spans, recorders] = await Promise.all([
    getEvaluation(sql, evaluationId),
    getEvaluationRun(sql, evaluationId, externalId),
    runSpans(sql, evaluationId, externalId),
    liveRunRecorders(sql, evaluationId, externalId),
  ]);
  if (!evaluation) return null;
  if (!run) {
    const live = await getLiveRun(db, evaluationId, externalId);
    return live ? { kind: "live", evaluation, live, spans } : null;
  }
  const transcript = await runMessages(sql, run.id, messagesFrom, MESSAGES_PAGE);
  return { kind: "stored", evaluation, run, transcript, spans, recorders };
}

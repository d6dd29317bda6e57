// What the two-runs page reads, in one call: the evaluation, the two runs, and the first page of each
// one's transcript once both are found. How they align is compare-runs.ts's (pure).
import type { Db } from "../../db/prisma";
import { getEvaluationRun, type EvaluationRunDetail } from "./evaluation-run";
import { getEvaluation } from "./get-evaluation";
import type { EvaluationDetail } from "./read-boundary";
import { MESSAGES_PAGE, runMessages, type RunMessagesPage } from "./run-messages";

export interface CompareRunsPage {
  evaluation: EvaluationDetail;
  /** Each named run, or null when the evaluation stores none by that external id; none when the page named no valid pair. */
  runs: { a: EvaluationRunDetail | null; b: EvaluationRunDetail | null } | null;
  /** The first page of each transcript, when both runs were found. */
  messages: { a: RunMessagesPage; b: RunMessagesPage } | null;
}

/** The page for runs `pair` (their external ids; null: the page named no valid pair); null for an unknown evaluation. */
export async function loadCompareRunsPage(
  db: Db,
  evaluationId: string,
  pair: { a: string; b: string } | null,
): Promise<CompareRunsPage | null> {
  // The evaluation first: an unknown one (or a path that is no id) is a 404 before any run is looked for.
  const evaluation = await getEvaluation(db, evaluationId);
  if (!evaluation) return null;
  const [a, b] = pair
    ? await Promise.all([getEvaluationRun(db, evaluationId, pair.a), getEvaluationRun(db, evaluationId, pair.b)])
    : [null, null];
  const messages =
    a && b
      ? await Promise.all([runMessages(db, a.id, 0, MESSAGES_PAGE), runMessages(db, b.id, 0, MESSAGES_PAGE)]).then(([ma, mb]) => ({
          a: ma,
          b: mb,
        }))
      : null;
  return { evaluation, runs: pair ? { a, b } : null, messages };
}

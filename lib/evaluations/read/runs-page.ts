// What an evaluation's runs page reads, in one call: the evaluation's name, a page of its stored runs
// under the query's filters, and its live runs still open.
import type { Db } from "../../db/prisma";
import { listEvaluationRuns } from "./evaluation-runs";
import { openLiveRuns, type OpenLiveRuns } from "./live-runs";
import type { EvaluationRunListItem, EvaluationRunListQuery } from "./read-boundary";

export interface EvaluationRunsPage {
  name: string;
  /** Null when the page's query was refused (the page says why). */
  page: { runs: EvaluationRunListItem[]; nextCursor: string | null } | null;
  open: OpenLiveRuns;
}

/** The runs page under `query` (null: refused, no runs listed); null for an unknown evaluation. */
export async function loadEvaluationRunsPage(
  db: Db,
  evaluationId: string,
  query: EvaluationRunListQuery | null,
): Promise<EvaluationRunsPage | null> {
  const evaluation = await db.evaluation.findUnique({ where: { id: evaluationId }, select: { name: true } });
  if (!evaluation) return null;
  const [page, open] = await Promise.all([query ? listEvaluationRuns(db, evaluationId, query) : null, openLiveRuns(db, evaluationId)]);
  return { name: evaluation.name, page, open };
}

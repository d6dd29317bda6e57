import { getDb } from "@/lib/db/web-process-db";
import { notFound } from "@/lib/errors";
import { deleteEvaluation, deleteEvaluationQuerySchema } from "@/lib/evaluations/manage/delete-evaluation";
import { getEvaluation } from "@/lib/evaluations/read/get-evaluation";
import { updateEvaluationScoring } from "@/lib/evaluations/manage/update-evaluation-scoring";
import { evaluationIdSchema, updateEvaluationScoringBodySchema } from "@/lib/evaluations/evaluation-requests";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** The evaluation and its current effect policy with its version. */
export const GET = apiRoute({ permission: "results:read", params: evaluationIdSchema }, async ({ params }) => {
  const evaluation = await getEvaluation(getDb(), params.id);
  if (!evaluation) throw notFound(`evaluation ${params.id}`);
  return Response.json(evaluation);
});

/** How the evaluation reads scores sent without a success/failure label: `{scoreThreshold?, labelMap?}` (null clears one); answers the evaluation. */
export const PATCH = apiRoute(
  { permission: "evaluation:write", params: evaluationIdSchema, body: updateEvaluationScoringBodySchema },
  async ({ params, body }) => Response.json(await updateEvaluationScoring(getDb(), params.id, body)),
);

/**
 * Deletes the evaluation with every run and record of it, and says so in the audit log:
 * `200 {id, name, runs, openLiveRuns, deletedAt}`. `?expectedRuns=N` (the count a confirmation named):
 * 409 `run_count_changed` when it holds another number now, nothing deleted.
 */
export const DELETE = apiRoute(
  { permission: "evaluation:write", params: evaluationIdSchema, query: deleteEvaluationQuerySchema },
  async ({ params, query, principal }) =>
    Response.json(await deleteEvaluation(getDb(), { userId: principal.userId, email: principal.email }, params.id, query)),
);

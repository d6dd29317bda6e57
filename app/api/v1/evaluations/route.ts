import { getDb } from "@/lib/db/web-process-db";
import { createEvaluation } from "@/lib/evaluations/manage/create-evaluation";
import { listEvaluations } from "@/lib/evaluations/read/list-evaluations";
import { evaluationListQuerySchema } from "@/lib/evaluations/read/read-boundary";
import { createEvaluationBodySchema } from "@/lib/evaluations/evaluation-requests";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** Evaluations newest first, filtered by a part of the `name`: `{ evaluations, nextCursor }`. */
export const GET = apiRoute({ permission: "results:read", query: evaluationListQuerySchema }, async ({ query }) =>
  Response.json(await listEvaluations(getDb(), query)),
);

/** Creates an evaluation `{name, description?, harness?, benchmark?, effectPolicy?}`: `201 {id}`. */
export const POST = apiRoute({ permission: "evaluation:write", body: createEvaluationBodySchema }, async ({ principal, body }) => {
  const id = await createEvaluation(getDb(), body, principal.userId);
  return Response.json({ id }, { status: 201, headers: { location: `/api/v1/evaluations/${id}` } });
});

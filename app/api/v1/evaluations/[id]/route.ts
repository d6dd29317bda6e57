import { getDb } from "@/lib/db/client";
import { notFound } from "@/lib/errors";
import { getEvaluation } from "@/lib/evaluations/get-evaluation";
import { evaluationIdSchema } from "@/lib/evaluations/schemas";
import { apiRoute } from "@/lib/web/api-route";

export const dynamic = "force-dynamic";

/** The evaluation and its current effect policy with its version. */
export const GET = apiRoute({ permission: "results:read", params: evaluationIdSchema }, async ({ params }) => {
  const evaluation = await getEvaluation(getDb(), params.id);
  if (!evaluation) throw notFound(`evaluation ${params.id}`);
  return Response.json(evaluation);
});

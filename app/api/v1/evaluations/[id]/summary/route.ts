import { getDb } from "@/lib/db/web-process-db";
import { evaluationIdSchema } from "@/lib/evaluations/evaluation-requests";
import { evaluationSummary } from "@/lib/evaluations/read/summary";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** The headline figures, each n/N with its population named, under the named effect-policy version. */
export const GET = apiRoute({ permission: "results:read", params: evaluationIdSchema }, async ({ params }) =>
  Response.json(await evaluationSummary(getDb(), params.id)),
);

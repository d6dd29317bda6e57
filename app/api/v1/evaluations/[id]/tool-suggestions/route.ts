import { getDb } from "@/lib/db/web-process-db";
import { notFound } from "@/lib/errors";
import { getEvaluation } from "@/lib/evaluations/read/get-evaluation";
import { evaluationIdSchema } from "@/lib/evaluations/evaluation-requests";
import { listToolSuggestions, postToolSuggestionsBodySchema, storeToolSuggestions } from "@/lib/evaluations/tool-suggestions";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** The tool classes recorders suggested: `{suggestions: [{tool, source, suggestedClass, reason, annotations?, updatedAt}]}`. */
export const GET = apiRoute({ permission: "results:read", params: evaluationIdSchema }, async ({ params }) => {
  const db = getDb();
  if (!(await getEvaluation(db, params.id))) throw notFound(`evaluation ${params.id}`);
  return Response.json({ suggestions: await listToolSuggestions(db, params.id) });
});

/** A recorder's suggestions (the MCP recorder's, from tool annotations and task answers): `200 {stored}`; no figure changes until a user saves them into a policy version. */
export const POST = apiRoute(
  { permission: "evaluation:write", params: evaluationIdSchema, body: postToolSuggestionsBodySchema },
  async ({ params, body }) => Response.json(await storeToolSuggestions(getDb(), params.id, body)),
);

import { getDb } from "@/lib/db/web-process-db";
import { apiRoute } from "@/lib/http/route/api-route";
import { createProtocol } from "@/lib/review/protocols";
import { matrixQuerySchema, matrixShow, viewerOf } from "@/lib/review/route-input";
import { createProtocolSchema } from "@/lib/review/review-schemas";
import { matrixView } from "@/lib/review/views";

export const dynamic = "force-dynamic";

/** The protocol matrix (consensus, the paper's, or one reviewer's codes), Table 3 live, and agreement per field. */
export const GET = apiRoute({ permission: "results:read", query: matrixQuerySchema }, async ({ principal, query }) =>
  Response.json(await matrixView(getDb(), viewerOf(principal), matrixShow(query.show, principal), { paperAsRater: query.paper })),
);

/** Adds a team's own protocol beside the paper's ten (editors and admins). */
export const POST = apiRoute({ permission: "protocol:write", body: createProtocolSchema }, async ({ principal, body }) => {
  const created = await createProtocol(getDb(), principal.userId, body);
  return Response.json({ id: created.id }, { status: 201 });
});

import { getDb } from "@/lib/db/client";
import { notFound } from "@/lib/http/errors";
import { apiRoute } from "@/lib/http/route";
import { protocolIdSchema, viewerOf } from "@/lib/review/route-input";
import { protocolView } from "@/lib/review/views";

export const dynamic = "force-dynamic";

/** One protocol: each field's codes and ledgers as the caller may see them (blind until they coded every field), consensus, history. */
export const GET = apiRoute({ permission: "results:read", params: protocolIdSchema }, async ({ principal, params }) => {
  const view = await protocolView(getDb(), viewerOf(principal), params.id);
  if (!view) throw notFound(`protocol ${params.id}`);
  return Response.json(view);
});

import { getDb } from "@/lib/db/web-process-db";
import { notFound } from "@/lib/errors";
import { apiRoute } from "@/lib/http/route/api-route";
import { protocolSnapshot, updateProtocol } from "@/lib/review/protocols";
import { protocolIdSchema, viewerOf } from "@/lib/review/route-input";
import { updateProtocolSchema } from "@/lib/review/review-schemas";
import { protocolView } from "@/lib/review/views";

export const dynamic = "force-dynamic";

/** One protocol: each field's codes and ledgers as the caller may see them (blind until they coded every field), consensus, history. */
export const GET = apiRoute({ permission: "results:read", params: protocolIdSchema }, async ({ principal, params }) => {
  const view = await protocolView(getDb(), viewerOf(principal), params.id);
  if (!view) throw notFound(`protocol ${params.id}`);
  return Response.json(view);
});

/** Renames, edits, retires or reinstates a team's protocol, from the version the caller saw (409 on a stale one). */
export const PATCH = apiRoute(
  { permission: "protocol:write", params: protocolIdSchema, body: updateProtocolSchema },
  async ({ principal, params, body }) => Response.json(protocolSnapshot(await updateProtocol(getDb(), principal.userId, params.id, body))),
);

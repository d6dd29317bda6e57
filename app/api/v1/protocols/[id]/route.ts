import { requireApiPermission } from "@/lib/auth/guard";
import { getDb } from "@/lib/db/client";
import { apiRoute, notFound, parseInput } from "@/lib/http/route";
import { protocolIdSchema, viewerOf } from "@/lib/review/route-input";
import { protocolView } from "@/lib/review/views";

export const dynamic = "force-dynamic";

/** One protocol: each field's codes and ledgers as the caller may see them (blind until they coded every field), consensus, history. */
export const GET = apiRoute(async (request: Request, context: { params: Promise<{ id: string }> }) => {
  const principal = await requireApiPermission(request, "results:read");
  const { id } = parseInput(protocolIdSchema, await context.params, "path");
  const view = await protocolView(getDb(), viewerOf(principal), id);
  if (!view) throw notFound(`protocol ${id}`);
  return Response.json(view, { headers: { "cache-control": "no-store" } });
});

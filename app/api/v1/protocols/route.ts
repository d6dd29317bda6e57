import { requireApiPermission } from "@/lib/auth/guard";
import { getDb } from "@/lib/db/client";
import { apiRoute, parseInput } from "@/lib/http/route";
import { matrixQuerySchema, matrixShow, viewerOf } from "@/lib/review/route-input";
import { matrixView } from "@/lib/review/views";

export const dynamic = "force-dynamic";

/** The protocol matrix (consensus, the paper's, or one reviewer's codes), Table 3 live, and agreement per field. */
export const GET = apiRoute(async (request: Request) => {
  const principal = await requireApiPermission(request, "results:read");
  const { show } = parseInput(matrixQuerySchema, Object.fromEntries(new URL(request.url).searchParams), "query");
  return Response.json(await matrixView(getDb(), viewerOf(principal), matrixShow(show, principal)), { headers: { "cache-control": "no-store" } });
});

import { requireApiPermission } from "@/lib/auth/guard";
import { listEffects } from "@/lib/dashboard/effects";
import { effectFiltersOf, effectListQuerySchema, queryObject } from "@/lib/dashboard/filters";
import { getDb } from "@/lib/db/client";
import { apiRoute, parseInput } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** One page of open-effects records across experiments, unresolved first: `{ effects, nextCursor, total, unresolved }`. */
export const GET = apiRoute(async (request: Request) => {
  await requireApiPermission(request, "results:read");
  const query = parseInput(effectListQuerySchema, queryObject(new URL(request.url).searchParams), "query");
  const page = await listEffects(getDb(), { filters: effectFiltersOf(query), cursor: query.cursor, limit: query.limit });
  return Response.json(page, { headers: { "cache-control": "no-store" } });
});

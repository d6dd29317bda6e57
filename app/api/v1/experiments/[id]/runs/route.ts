import { requireApiPermission } from "@/lib/auth/guard";
import { queryObject, runFiltersOf, runListQuerySchema } from "@/lib/dashboard/filters";
import { experimentExists, listRuns } from "@/lib/dashboard/runs";
import { getDb } from "@/lib/db/client";
import { apiRoute, experimentIdSchema, notFound, parseInput } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** One page of the experiment's runs under the query's filters: `{ runs, nextCursor, total }`. */
export const GET = apiRoute(async (request: Request, context: { params: Promise<{ id: string }> }) => {
  await requireApiPermission(request, "results:read");
  const { id } = parseInput(experimentIdSchema, await context.params, "path");
  const query = parseInput(runListQuerySchema, queryObject(new URL(request.url).searchParams), "query");
  const db = getDb();
  if (!(await experimentExists(db, id))) throw notFound(`experiment ${id}`);
  const page = await listRuns(db, id, { filters: runFiltersOf(query), cursor: query.cursor, limit: query.limit });
  return Response.json(page, { headers: { "cache-control": "no-store" } });
});

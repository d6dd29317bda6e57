import { runFiltersOf, runListQuerySchema } from "@/lib/experiments/read/filters";
import { experimentExists, listRuns } from "@/lib/experiments/read/runs";
import { getDb } from "@/lib/db/web-process-db";
import { notFound } from "@/lib/errors";
import { experimentIdSchema } from "@/lib/experiments/experiment-schemas";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** One page of the experiment's runs under the query's filters: `{ runs, nextCursor, total }`. */
export const GET = apiRoute(
  { permission: "results:read", params: experimentIdSchema, query: runListQuerySchema },
  async ({ params, query }) => {
    const db = getDb();
    if (!(await experimentExists(db, params.id))) throw notFound(`experiment ${params.id}`);
    return Response.json(await listRuns(db, params.id, { filters: runFiltersOf(query), cursor: query.cursor, limit: query.limit }));
  },
);

import { requireApiPermission } from "@/lib/auth/guard";
import { exportResponse } from "@/lib/dashboard/csv";
import { queryObject, runExportQuerySchema, runFiltersOf } from "@/lib/dashboard/filters";
import { experimentExists, RUN_EXPORT_COLUMNS, runBatches } from "@/lib/dashboard/runs";
import { getDb } from "@/lib/db/client";
import { apiRoute, experimentIdSchema, notFound, parseInput } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** Every run of the experiment under the query's filters, as a CSV or JSON download, streamed in keyset batches. */
export const GET = apiRoute(async (request: Request, context: { params: Promise<{ id: string }> }) => {
  await requireApiPermission(request, "results:read");
  const { id } = parseInput(experimentIdSchema, await context.params, "path");
  const query = parseInput(runExportQuerySchema, queryObject(new URL(request.url).searchParams), "query");
  const db = getDb();
  if (!(await experimentExists(db, id))) throw notFound(`experiment ${id}`);
  return exportResponse({ format: query.format, batches: runBatches(db, id, runFiltersOf(query)), columns: RUN_EXPORT_COLUMNS, filename: `runs-${id}` });
});

import { requireApiPermission } from "@/lib/auth/guard";
import { exportResponse } from "@/lib/dashboard/csv";
import { EFFECT_EXPORT_COLUMNS, effectBatches } from "@/lib/dashboard/effects";
import { effectExportQuerySchema, effectFiltersOf, queryObject } from "@/lib/dashboard/filters";
import { getDb } from "@/lib/db/client";
import { apiRoute, parseInput } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** Every open-effects record under the query's filters, as a CSV or JSON download, streamed in keyset batches. */
export const GET = apiRoute(async (request: Request) => {
  await requireApiPermission(request, "results:read");
  const query = parseInput(effectExportQuerySchema, queryObject(new URL(request.url).searchParams), "query");
  return exportResponse({ format: query.format, batches: effectBatches(getDb(), effectFiltersOf(query)), columns: EFFECT_EXPORT_COLUMNS, filename: "open-effects" });
});

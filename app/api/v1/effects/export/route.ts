import { exportResponse } from "@/lib/experiments/read/csv";
import { EFFECT_EXPORT_COLUMNS, effectBatches } from "@/lib/experiments/read/effects";
import { effectExportQuerySchema, effectFiltersOf } from "@/lib/experiments/read/filters";
import { getDb } from "@/lib/db/web-process-db";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** Every open-effects record under the query's filters, as a CSV or JSON download, streamed in keyset batches. */
export const GET = apiRoute({ permission: "results:read", query: effectExportQuerySchema }, async ({ query }) =>
  exportResponse({
    format: query.format,
    batches: effectBatches(getDb(), effectFiltersOf(query)),
    columns: EFFECT_EXPORT_COLUMNS,
    filename: "open-effects",
  }),
);

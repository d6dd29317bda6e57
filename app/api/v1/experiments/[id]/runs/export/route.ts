import { exportResponse } from "@/lib/experiments/read/csv";
import { runExportQuerySchema, runFiltersOf } from "@/lib/experiments/read/filters";
import { experimentExists, RUN_EXPORT_COLUMNS, runBatches } from "@/lib/experiments/read/runs";
import { getDb } from "@/lib/db/web-process-db";
import { notFound } from "@/lib/errors";
import { experimentIdSchema } from "@/lib/experiments/experiment-schemas";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** Every run of the experiment under the query's filters, as a CSV or JSON download, streamed in keyset batches. */
export const GET = apiRoute(
  { permission: "results:read", params: experimentIdSchema, query: runExportQuerySchema },
  async ({ params, query }) => {
    const db = getDb();
    if (!(await experimentExists(db, params.id))) throw notFound(`experiment ${params.id}`);
    return exportResponse({
      format: query.format,
      batches: runBatches(db, params.id, runFiltersOf(query)),
      columns: RUN_EXPORT_COLUMNS,
      filename: `runs-${params.id}`,
    });
  },
);

import { getDb } from "@/lib/db/web-process-db";
import { notFound } from "@/lib/errors";
import { EVALUATION_EXPORT_COLUMNS, evaluationExportQuerySchema, evaluationRunBatches } from "@/lib/evaluations/read/export-runs";
import { getEvaluation } from "@/lib/evaluations/read/get-evaluation";
import { evaluationIdSchema } from "@/lib/evaluations/evaluation-requests";
import { exportResponse } from "@/lib/experiments/read/csv";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** Every run of the evaluation with its audit and analysis unit, as CSV (BOM, CRLF) or JSON, streamed. */
export const GET = apiRoute(
  { permission: "results:read", params: evaluationIdSchema, query: evaluationExportQuerySchema },
  async ({ params, query }) => {
    const db = getDb();
    if (!(await getEvaluation(db, params.id))) throw notFound(`evaluation ${params.id}`);
    return exportResponse({
      format: query.format,
      batches: evaluationRunBatches(db, params.id),
      columns: EVALUATION_EXPORT_COLUMNS,
      filename: `evaluation-${params.id}`,
    });
  },
);

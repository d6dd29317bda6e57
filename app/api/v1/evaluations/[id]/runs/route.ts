import { getDb } from "@/lib/db/web-process-db";
import { notFound } from "@/lib/errors";
import { listEvaluationRuns } from "@/lib/evaluations/read/evaluation-runs";
import { getEvaluation } from "@/lib/evaluations/read/get-evaluation";
import { ingestRuns } from "@/lib/evaluations/ingest/ingest-runs";
import { evaluationRunListQuerySchema } from "@/lib/evaluations/read/read-boundary";
import { evaluationIdSchema } from "@/lib/evaluations/evaluation-requests";
import { ingestEnvelopeSchema } from "@/lib/evaluations/run-record-schema";
import { MAX_INGEST_BODY_BYTES } from "@/lib/evaluations/vocabulary";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** One page of the evaluation's runs under the query's filters: `{ runs, nextCursor }`. */
export const GET = apiRoute(
  { permission: "results:read", params: evaluationIdSchema, query: evaluationRunListQuerySchema },
  async ({ params, query }) => {
    const db = getDb();
    if (!(await getEvaluation(db, params.id))) throw notFound(`evaluation ${params.id}`);
    return Response.json(await listEvaluationRuns(db, params.id, query));
  },
);

/** Ingests up to 1,000 runs: `200 {results: [{externalId, status, error?}]}`, one per run in order; a bad run refuses only itself. */
export const POST = apiRoute(
  { permission: "evaluation:write", params: evaluationIdSchema, body: ingestEnvelopeSchema, maxBodyBytes: MAX_INGEST_BODY_BYTES },
  async ({ params, body }) => Response.json({ results: await ingestRuns(getDb(), params.id, body.runs.items) }),
);

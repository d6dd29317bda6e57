import { getDb } from "@/lib/db/web-process-db";
import { evaluationStatistics } from "@/lib/evaluations/read/evaluation-statistics";
import { underOneAppliedVersion } from "@/lib/evaluations/read/under-one-applied-version";
import { evaluationIdSchema } from "@/lib/evaluations/evaluation-requests";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** Rates with their populations and Wilson intervals, rows against analysis units with the design effect, pass^k where trials are separate, the exclusion rule and its sensitivity (docs/statistics.md). */
export const GET = apiRoute({ permission: "results:read", params: evaluationIdSchema }, async ({ params }) =>
  Response.json(await underOneAppliedVersion(getDb(), params.id, () => evaluationStatistics(getDb(), params.id))),
);

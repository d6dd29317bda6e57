import { getDb } from "@/lib/db/web-process-db";
import { notFound } from "@/lib/errors";
import { cachedExperimentStatistics } from "@/lib/experiments/experiment-statistics";
import { experimentIdSchema } from "@/lib/experiments/experiment-schemas";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** Rates with their populations and Wilson intervals, units and design effects, pass^k where trials are separate, the exclusion rule and its sensitivity (docs/statistics.md). */
export const GET = apiRoute({ permission: "results:read", params: experimentIdSchema }, async ({ params }) => {
  const statistics = await cachedExperimentStatistics(getDb(), params.id);
  if (!statistics) throw notFound(`experiment ${params.id}`);
  return Response.json(statistics);
});

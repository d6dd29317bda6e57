import { getDb } from "@/lib/db/web-process-db";
import { notFound } from "@/lib/errors";
import { cachedExperimentSummary } from "@/lib/experiments/cached-summary";
import { experimentIdSchema } from "@/lib/experiments/experiment-schemas";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** Exactly the JSON that `npm run replay -- --json FILE` writes, aggregated in SQL from the stored runs (a finished experiment's once per process). */
export const GET = apiRoute({ permission: "results:read", params: experimentIdSchema }, async ({ params }) => {
  const summary = await cachedExperimentSummary(getDb(), params.id);
  if (!summary) throw notFound(`experiment ${params.id}`);
  return Response.json(summary);
});

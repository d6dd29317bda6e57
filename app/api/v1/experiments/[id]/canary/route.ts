import { canaryResults } from "@/lib/canary/canary-results-store";
import { getDb } from "@/lib/db/web-process-db";
import { notFound } from "@/lib/errors";
import { experimentIdSchema } from "@/lib/experiments/experiment-schemas";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/**
 * A canary experiment's results per condition and surface: what A planted there, found n/N, the
 * service's answer that shows it, expected, held n/N (lib/canary/canary-results-store.ts). 404 for any other experiment.
 */
export const GET = apiRoute({ permission: "results:read", params: experimentIdSchema }, async ({ params }) => {
  const results = await canaryResults(getDb(), params.id);
  if (!results) throw notFound(`canary experiment ${params.id}`);
  return Response.json(results);
});

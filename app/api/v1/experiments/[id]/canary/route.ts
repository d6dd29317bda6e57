import { canaryResults } from "@/lib/canary/store";
import { getDb } from "@/lib/db/client";
import { notFound } from "@/lib/errors";
import { experimentIdSchema } from "@/lib/experiments/schemas";
import { apiRoute } from "@/lib/web/api-route";

export const dynamic = "force-dynamic";

/**
 * A canary experiment's results per condition and surface: what A planted there, found n/N, the
 * service's answer that shows it, expected, held n/N (lib/canary/store.ts). 404 for any other experiment.
 */
export const GET = apiRoute({ permission: "results:read", params: experimentIdSchema }, async ({ params }) => {
  const results = await canaryResults(getDb(), params.id);
  if (!results) throw notFound(`canary experiment ${params.id}`);
  return Response.json(results);
});

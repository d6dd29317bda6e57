import { getDb } from "@/lib/db/client";
import { notFound } from "@/lib/errors";
import { experimentIdSchema } from "@/lib/experiments/schemas";
import { apiRoute } from "@/lib/web/api-route";
import { storedExperimentTraceResults } from "@/lib/replay/store/trace-results";

export const dynamic = "force-dynamic";

/** Results per replayed trace and per suite, aggregated in SQL: `{traces, suites}`, as `npm run replay -- --traces … --json FILE` adds them. */
export const GET = apiRoute({ permission: "results:read", params: experimentIdSchema }, async ({ params }) => {
  const results = await storedExperimentTraceResults(getDb(), params.id);
  if (!results) throw notFound(`experiment ${params.id}`);
  return Response.json(results);
});

import { getDb } from "@/lib/db/web-process-db";
import { notFound } from "@/lib/errors";
import { experimentIdSchema } from "@/lib/experiments/experiment-schemas";
import { apiRoute } from "@/lib/http/route/api-route";
import { storedExperimentTraceResults } from "@/lib/replay/store/trace-results";

export const dynamic = "force-dynamic";

/** Results per replayed trace and per suite, aggregated in SQL: `{traces, suites}`, as `npm run replay -- --traces … --json FILE` adds them. */
export const GET = apiRoute({ permission: "results:read", params: experimentIdSchema }, async ({ params }) => {
  const results = await storedExperimentTraceResults(getDb(), params.id);
  if (!results) throw notFound(`experiment ${params.id}`);
  return Response.json(results);
});

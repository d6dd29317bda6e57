import { getDb } from "@/lib/db/web-process-db";
import { notFound } from "@/lib/errors";
import { apiRoute } from "@/lib/http/route/api-route";
import { getTrace } from "@/lib/traces/library";
import { traceIdSchema } from "@/lib/traces/trace-schemas";

export const dynamic = "force-dynamic";

/** One trace: its calls in order (state-changing ones marked), the imported runs of its task and the experiments that replayed it. */
export const GET = apiRoute({ permission: "results:read", params: traceIdSchema }, async ({ params }) => {
  const trace = await getTrace(getDb(), params.id);
  if (!trace) throw notFound(`trace ${params.id}`);
  return Response.json(trace);
});

import { getDb } from "@/lib/db/web-process-db";
import { apiRoute } from "@/lib/http/route/api-route";
import { listTraces } from "@/lib/traces/library";
import { traceListQuerySchema } from "@/lib/traces/trace-schemas";

export const dynamic = "force-dynamic";

/** The trace library by suite, kind and task, filtered by `suite`, `kind`, `task` and `writes=with|without`: `{ traces, nextCursor }`. */
export const GET = apiRoute({ permission: "results:read", query: traceListQuerySchema }, async ({ query }) =>
  Response.json(await listTraces(getDb(), query)),
);

import { listEffects } from "@/lib/experiments/read/effects";
import { effectFiltersOf, effectListQuerySchema } from "@/lib/experiments/read/filters";
import { getDb } from "@/lib/db/web-process-db";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** One page of open-effects records across experiments, unresolved first: `{ effects, nextCursor, total, unresolved }`. */
export const GET = apiRoute({ permission: "results:read", query: effectListQuerySchema }, async ({ query }) =>
  Response.json(await listEffects(getDb(), { filters: effectFiltersOf(query), cursor: query.cursor, limit: query.limit })),
);

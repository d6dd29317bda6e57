import { listEffects } from "@/lib/experiments/read/effects";
import { effectFiltersOf, effectListQuerySchema } from "@/lib/experiments/read/filters";
import { getDb } from "@/lib/db/client";
import { apiRoute } from "@/lib/web/api-route";

export const dynamic = "force-dynamic";

/** One page of open-effects records across experiments, unresolved first: `{ effects, nextCursor, total, unresolved }`. */
export const GET = apiRoute({ permission: "results:read", query: effectListQuerySchema }, async ({ query }) =>
  Response.json(await listEffects(getDb(), { filters: effectFiltersOf(query), cursor: query.cursor, limit: query.limit })),
);

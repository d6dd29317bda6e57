import { listEffects } from "@/lib/dashboard/effects";
import { effectFiltersOf, effectListQuerySchema } from "@/lib/dashboard/filters";
import { getDb } from "@/lib/db/client";
import { apiRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** One page of open-effects records across experiments, unresolved first: `{ effects, nextCursor, total, unresolved }`. */
export const GET = apiRoute({ permission: "results:read", query: effectListQuerySchema }, async ({ query }) =>
  Response.json(await listEffects(getDb(), { filters: effectFiltersOf(query), cursor: query.cursor, limit: query.limit })),
);

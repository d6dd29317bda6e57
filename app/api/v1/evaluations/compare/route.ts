import { getDb } from "@/lib/db/web-process-db";
import { compareQuerySchema, compareStoredEvaluations } from "@/lib/evaluations/read/compare";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** Two to ten evaluations under one exclusion rule: rates, justified ranges, rankings and a verdict per pair (docs/statistics.md). */
export const GET = apiRoute({ permission: "results:read", query: compareQuerySchema }, async ({ query }) =>
  Response.json(await compareStoredEvaluations(getDb(), query.ids)),
);

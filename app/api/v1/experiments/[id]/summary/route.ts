import { experimentExists } from "@/lib/dashboard/runs";
import { getDb } from "@/lib/db/client";
import { experimentIdSchema } from "@/lib/experiments/schemas";
import { notFound } from "@/lib/http/errors";
import { apiRoute } from "@/lib/http/route";
import { experimentSummary } from "@/lib/replay/summary";
import { replaySummarySchema } from "@/lib/replay/summary-schema";

export const dynamic = "force-dynamic";

/** Exactly the JSON that `npm run replay -- --json FILE` writes, aggregated in SQL from the stored runs. */
export const GET = apiRoute({ permission: "results:read", params: experimentIdSchema }, async ({ params }) => {
  const db = getDb();
  if (!(await experimentExists(db, params.id))) throw notFound(`experiment ${params.id}`);
  return Response.json(replaySummarySchema.parse(await experimentSummary(db, params.id)));
});

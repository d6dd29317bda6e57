import { requireApiPermission } from "@/lib/auth/guard";
import { getDb } from "@/lib/db/client";
import { apiRoute, experimentIdSchema, notFound, parseInput } from "@/lib/http/route";
import { experimentSummary } from "@/lib/replay/summary";
import { replaySummarySchema } from "@/lib/replay/summary-schema";

export const dynamic = "force-dynamic";

/** Exactly the JSON that `npm run replay -- --json FILE` writes, aggregated in SQL from the stored runs. */
export const GET = apiRoute(async (request: Request, context: { params: Promise<{ id: string }> }) => {
  await requireApiPermission(request, "results:read");
  const { id } = parseInput(experimentIdSchema, await context.params, "path");
  const db = getDb();
  if (!(await db.experiment.findUnique({ where: { id }, select: { id: true } }))) throw notFound(`experiment ${id}`);
  return Response.json(replaySummarySchema.parse(await experimentSummary(db, id)), { headers: { "cache-control": "no-store" } });
});

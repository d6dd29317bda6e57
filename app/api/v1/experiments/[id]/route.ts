import { requireApiPermission } from "@/lib/auth/guard";
import { getDb } from "@/lib/db/client";
import { experimentStatus } from "@/lib/experiments/progress";
import { apiRoute, experimentIdSchema, notFound, parseInput } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** The experiment's state and progress (done/total runs, overall and per condition). */
export const GET = apiRoute(async (request: Request, context: { params: Promise<{ id: string }> }) => {
  await requireApiPermission(request, "results:read");
  const { id } = parseInput(experimentIdSchema, await context.params, "path");
  const status = await experimentStatus(getDb(), id);
  if (!status) throw notFound(`experiment ${id}`);
  return Response.json(status, { headers: { "cache-control": "no-store" } });
});

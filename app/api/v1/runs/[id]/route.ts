import { requireApiPermission } from "@/lib/auth/guard";
import { runIdSchema } from "@/lib/dashboard/filters";
import { loadRunDetail } from "@/lib/dashboard/runs";
import { getDb } from "@/lib/db/client";
import { apiRoute, notFound, parseInput } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** One run: its columns and evidence, open-effects records, paired run, timeline and the explanation of its labels. */
export const GET = apiRoute(async (request: Request, context: { params: Promise<{ id: string }> }) => {
  await requireApiPermission(request, "results:read");
  const { id } = parseInput(runIdSchema, await context.params, "path");
  const detail = await loadRunDetail(getDb(), id);
  if (!detail) throw notFound(`run ${id}`);
  return Response.json(detail, { headers: { "cache-control": "no-store" } });
});

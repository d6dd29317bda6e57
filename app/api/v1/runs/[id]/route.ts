import { runIdSchema } from "@/lib/experiments/read/filters";
import { loadRunDetail } from "@/lib/experiments/read/runs";
import { getDb } from "@/lib/db/web-process-db";
import { notFound } from "@/lib/errors";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** One run: its columns and evidence, open-effects records, paired run, timeline and the explanation of its labels. */
export const GET = apiRoute({ permission: "results:read", params: runIdSchema }, async ({ params }) => {
  const detail = await loadRunDetail(getDb(), params.id);
  if (!detail) throw notFound(`run ${params.id}`);
  return Response.json(detail);
});

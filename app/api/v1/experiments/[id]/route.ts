import { getDb } from "@/lib/db/client";
import { experimentStatus } from "@/lib/experiments/progress";
import { experimentIdSchema } from "@/lib/experiments/schemas";
import { notFound } from "@/lib/http/errors";
import { apiRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** The experiment's state and progress (done/total runs, overall and per condition). */
export const GET = apiRoute({ permission: "results:read", params: experimentIdSchema }, async ({ params }) => {
  const status = await experimentStatus(getDb(), params.id);
  if (!status) throw notFound(`experiment ${params.id}`);
  return Response.json(status);
});

import { getDb } from "@/lib/db/client";
import { notFound } from "@/lib/errors";
import { getLiveRun } from "@/lib/evaluations/live/live-runs";
import { liveRunPathSchema } from "@/lib/evaluations/live/schemas";
import { apiRoute } from "@/lib/web/api-route";

export const dynamic = "force-dynamic";

/** A live run as it stands: its state, and the record its events make now (each effect at its latest status). */
export const GET = apiRoute({ permission: "results:read", params: liveRunPathSchema }, async ({ params }) => {
  const run = await getLiveRun(getDb(), params.id, params.externalId);
  if (!run) throw notFound(`live run ${params.externalId}`, "externalId");
  return Response.json(run);
});

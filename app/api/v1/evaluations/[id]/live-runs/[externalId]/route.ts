import { getDb } from "@/lib/db/web-process-db";
import { notFound } from "@/lib/errors";
import { getLiveRun } from "@/lib/evaluations/read/live-runs";
import { liveRunRecorders } from "@/lib/evaluations/live/recorders";
import { liveRunPathSchema } from "@/lib/evaluations/live/live-run-schemas";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** A live run as it stands: its state, the record its events make now (each effect at its latest status), and its recorders with their last heartbeat. */
export const GET = apiRoute({ permission: "results:read", params: liveRunPathSchema }, async ({ params }) => {
  const db = getDb();
  const run = await getLiveRun(db, params.id, params.externalId);
  if (!run) throw notFound(`live run ${params.externalId}`, "externalId");
  return Response.json({ ...run, recorders: await liveRunRecorders(db, params.id, params.externalId) });
});

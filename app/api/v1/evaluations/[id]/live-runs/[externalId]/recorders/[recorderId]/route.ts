import { getDb } from "@/lib/db/web-process-db";
import { recorderHeartbeat } from "@/lib/evaluations/live/recorders";
import { liveRunRecorderPathSchema, recorderHeartbeatBodySchema } from "@/lib/evaluations/live/live-run-schemas";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** A recorder's heartbeat `{kind?, flushedThrough?, stopped?}` (the first registers it): `200 {recorderId, kind, startedAt, lastSeenAt, flushedThrough, stoppedAt}`. */
export const PUT = apiRoute(
  { permission: "evaluation:write", params: liveRunRecorderPathSchema, body: recorderHeartbeatBodySchema },
  async ({ params, body }) => Response.json(await recorderHeartbeat(getDb(), params.id, params.externalId, params.recorderId, body)),
);

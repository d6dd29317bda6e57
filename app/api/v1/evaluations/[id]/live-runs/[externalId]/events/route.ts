import { getDb } from "@/lib/db/web-process-db";
import { recordLiveEvents } from "@/lib/evaluations/live/record-live-events";
import { liveEventsEnvelopeSchema, liveRunPathSchema, MAX_LIVE_EVENTS_BODY_BYTES } from "@/lib/evaluations/live/live-run-schemas";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** A live run's events, in any order, idempotent by eventId: `200 {accepted, errors: [{index, code, message, field}], …}`; a bad event refuses only itself. */
export const POST = apiRoute(
  { permission: "evaluation:write", params: liveRunPathSchema, body: liveEventsEnvelopeSchema, maxBodyBytes: MAX_LIVE_EVENTS_BODY_BYTES },
  async ({ params, body }) => Response.json(await recordLiveEvents(getDb(), params.id, params.externalId, body.events.items)),
);

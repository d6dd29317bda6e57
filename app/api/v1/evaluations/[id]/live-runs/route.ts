import { getDb } from "@/lib/db/web-process-db";
import { openLiveRun } from "@/lib/evaluations/live/open-live-run";
import { openLiveRunBodySchema } from "@/lib/evaluations/live/live-run-schemas";
import { evaluationIdSchema } from "@/lib/evaluations/evaluation-requests";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** Opens a live run: `201 {externalId, created, state}` (created false for a retried open); 409 if the run exists and is closed. */
export const POST = apiRoute(
  { permission: "evaluation:write", params: evaluationIdSchema, body: openLiveRunBodySchema },
  async ({ params, body }) => Response.json(await openLiveRun(getDb(), params.id, body), { status: 201 }),
);

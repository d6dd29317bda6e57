import { getDb } from "@/lib/db/web-process-db";
import { scoreLiveRun } from "@/lib/evaluations/live/score-live-run";
import { liveRunPathSchema, scoreLiveRunBodySchema } from "@/lib/evaluations/live/live-run-schemas";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** Scores a live run (or closes it with `unscoredReason`): `200 {finality, reason?, effectId?}`, as the audit has it. */
export const POST = apiRoute(
  { permission: "evaluation:write", params: liveRunPathSchema, body: scoreLiveRunBodySchema },
  async ({ params, body }) => Response.json(await scoreLiveRun(getDb(), params.id, params.externalId, body)),
);

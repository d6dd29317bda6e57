import { getDb } from "@/lib/db/web-process-db";
import { appendResolution } from "@/lib/evaluations/audit/append-resolution";
import { effectResolutionPathSchema, postResolutionBodySchema } from "@/lib/evaluations/evaluation-requests";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** Appends late evidence for an effect (never overwriting) and recomputes its run's audit: `201 {id, runExternalId}`. */
export const POST = apiRoute(
  { permission: "evaluation:write", params: effectResolutionPathSchema, body: postResolutionBodySchema },
  async ({ principal, params, body }) =>
    Response.json(await appendResolution(getDb(), params.id, params.effectId, body, principal.userId), { status: 201 }),
);

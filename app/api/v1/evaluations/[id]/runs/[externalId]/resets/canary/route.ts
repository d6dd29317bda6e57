import { getDb } from "@/lib/db/web-process-db";
import { appendResetCanary } from "@/lib/evaluations/audit/append-reset-canary";
import { evaluationRunPathSchema, postResetCanaryBodySchema } from "@/lib/evaluations/evaluation-requests";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/**
 * Appends a canary check `{surface, planted, found, evidence, at?}` to one of the run's resets and
 * recomputes the separation audit: `201 {id, resetAt, verified}`, where `verified` is whether the
 * reset still breaks routes (verified, and no canary of it was found).
 */
export const POST = apiRoute(
  { permission: "evaluation:write", params: evaluationRunPathSchema, body: postResetCanaryBodySchema },
  async ({ principal, params, body }) =>
    Response.json(await appendResetCanary(getDb(), params.id, params.externalId, body, principal.userId), { status: 201 }),
);

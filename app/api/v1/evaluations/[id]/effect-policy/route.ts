import { getDb } from "@/lib/db/web-process-db";
import { evaluationIdSchema } from "@/lib/evaluations/evaluation-requests";
import { setEffectPolicyBodySchema } from "@/lib/evaluations/effect-policy-schema";
import { setEffectPolicy } from "@/lib/evaluations/policy-recompute/set-effect-policy";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** Stores `{tools: {NAME: CLASS or {class, reads?, writes?}}, baseVersion?}` as the next policy version and recomputes every run's audit: `{version}`; 409 when the policy changed since baseVersion. */
export const PUT = apiRoute(
  { permission: "evaluation:write", params: evaluationIdSchema, body: setEffectPolicyBodySchema },
  async ({ principal, params, body }) => Response.json(await setEffectPolicy(getDb(), params.id, body, principal.userId)),
);

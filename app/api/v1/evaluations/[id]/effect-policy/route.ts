import { getDb } from "@/lib/db/client";
import { effectPolicySchema, evaluationIdSchema } from "@/lib/evaluations/schemas";
import { setEffectPolicy } from "@/lib/evaluations/set-effect-policy";
import { apiRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** Stores `{tools: {NAME: CLASS}}` as the next policy version and recomputes every run's audit: `{version}`. */
export const PUT = apiRoute({ permission: "evaluation:write", params: evaluationIdSchema, body: effectPolicySchema }, async ({ principal, params, body }) =>
  Response.json(await setEffectPolicy(getDb(), params.id, body, principal.userId)),
);

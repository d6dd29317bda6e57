import { getDb } from "@/lib/db/web-process-db";
import { evaluationIdSchema, evaluationRuleChangeBodySchema } from "@/lib/evaluations/evaluation-requests";
import { apiRoute } from "@/lib/http/route/api-route";
import { changeExclusionRule, exclusionRuleHistory } from "@/lib/statistics/exclusion-rule-store";

export const dynamic = "force-dynamic";

/** The declared exclusion rule's current version and every version, newest first: `{current, versions}`. */
export const GET = apiRoute({ permission: "results:read", params: evaluationIdSchema }, async ({ params }) =>
  Response.json(await exclusionRuleHistory(getDb(), { kind: "evaluation", id: params.id })),
);

/** `{baseVersion, reason, rule}` → the next version, `{version, hash}`; 409 when the rule changed since baseVersion. */
export const PUT = apiRoute(
  { permission: "evaluation:write", params: evaluationIdSchema, body: evaluationRuleChangeBodySchema },
  async ({ principal, params, body }) =>
    Response.json(await changeExclusionRule(getDb(), { kind: "evaluation", id: params.id }, body, principal.userId)),
);

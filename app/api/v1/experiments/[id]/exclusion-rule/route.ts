import { getDb } from "@/lib/db/web-process-db";
import { experimentIdSchema } from "@/lib/experiments/experiment-schemas";
import { apiRoute } from "@/lib/http/route/api-route";
import { changeExclusionRuleBodySchema } from "@/lib/statistics/exclusion-rule";
import { changeExclusionRule, exclusionRuleHistory } from "@/lib/statistics/exclusion-rule-store";

export const dynamic = "force-dynamic";

/** The declared exclusion rule's current version and every version, newest first: `{current, versions}`. */
export const GET = apiRoute({ permission: "results:read", params: experimentIdSchema }, async ({ params }) =>
  Response.json(await exclusionRuleHistory(getDb(), { kind: "experiment", id: params.id })),
);

/** `{baseVersion, reason, rule}` → the next version, `{version, hash}`; 409 when the rule changed since baseVersion. */
export const PUT = apiRoute(
  { permission: "experiment:run", params: experimentIdSchema, body: changeExclusionRuleBodySchema },
  async ({ principal, params, body }) =>
    Response.json(await changeExclusionRule(getDb(), { kind: "experiment", id: params.id }, body, principal.userId)),
);

import { getDb } from "@/lib/db/web-process-db";
import { apiRoute } from "@/lib/http/route/api-route";
import { consensusBodySchema, protocolIdSchema } from "@/lib/review/route-input";
import { setConsensus } from "@/lib/review/review-codes-store";

export const dynamic = "force-dynamic";

/** Reconciles one field of a protocol to a consensus code with its rationale (409 on a stale version). */
export const PUT = apiRoute(
  { permission: "review:reconcile", params: protocolIdSchema, body: consensusBodySchema },
  async ({ principal, params, body }) => {
    const saved = await setConsensus(getDb(), principal.userId, { ...body, protocolId: params.id });
    return Response.json({ code: saved.code, rationale: saved.rationale, version: saved.version });
  },
);

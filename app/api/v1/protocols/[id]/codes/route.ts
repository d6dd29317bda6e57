import { getDb } from "@/lib/db/web-process-db";
import { apiRoute } from "@/lib/http/route/api-route";
import { protocolIdSchema, saveCodeBodySchema } from "@/lib/review/route-input";
import { saveCode } from "@/lib/review/review-codes-store";

export const dynamic = "force-dynamic";

/** Saves the caller's own code and ledger for one field, as a new version with its reason (409 on a stale version). */
export const PUT = apiRoute(
  { permission: "review:code", params: protocolIdSchema, body: saveCodeBodySchema },
  async ({ principal, params, body }) => Response.json(await saveCode(getDb(), principal.userId, { ...body, protocolId: params.id })),
);

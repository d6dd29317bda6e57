import { getDb } from "@/lib/db/web-process-db";
import { apiRoute } from "@/lib/http/route/api-route";
import { reviewCodeIdSchema } from "@/lib/review/route-input";
import { restoreSchema } from "@/lib/review/review-schemas";
import { restoreCode } from "@/lib/review/review-codes-store";

export const dynamic = "force-dynamic";

/** Restores a past version of the caller's own cell, as a new version with its reason. */
export const POST = apiRoute(
  { permission: "review:code", params: reviewCodeIdSchema, body: restoreSchema },
  async ({ principal, params, body }) => Response.json(await restoreCode(getDb(), principal.userId, params.id, body.version, body.reason)),
);

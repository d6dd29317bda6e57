import { requireApiPermission } from "@/lib/auth/guard";
import { getDb } from "@/lib/db/client";
import { apiRoute, parseInput, readJsonBody } from "@/lib/http/route";
import { reviewCodeIdSchema } from "@/lib/review/route-input";
import { restoreSchema } from "@/lib/review/schemas";
import { restoreCode } from "@/lib/review/store";

export const dynamic = "force-dynamic";

/** Restores a past version of the caller's own cell, as a new version with its reason. */
export const POST = apiRoute(async (request: Request, context: { params: Promise<{ id: string }> }) => {
  const principal = await requireApiPermission(request, "review:code");
  const { id } = parseInput(reviewCodeIdSchema, await context.params, "path");
  const { version, reason } = parseInput(restoreSchema, await readJsonBody(request), "body");
  return Response.json(await restoreCode(getDb(), principal.userId, id, version, reason));
});

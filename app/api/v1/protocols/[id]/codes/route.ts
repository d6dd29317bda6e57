import { requireApiPermission } from "@/lib/auth/guard";
import { getDb } from "@/lib/db/client";
import { apiRoute, parseInput, readJsonBody } from "@/lib/http/route";
import { protocolIdSchema, saveCodeBodySchema } from "@/lib/review/route-input";
import { saveCode } from "@/lib/review/store";

export const dynamic = "force-dynamic";

/** Saves the caller's own code and ledger for one field, as a new version with its reason (409 on a stale version). */
export const PUT = apiRoute(async (request: Request, context: { params: Promise<{ id: string }> }) => {
  const principal = await requireApiPermission(request, "review:code");
  const { id } = parseInput(protocolIdSchema, await context.params, "path");
  const body = parseInput(saveCodeBodySchema, await readJsonBody(request), "body");
  return Response.json(await saveCode(getDb(), principal.userId, { ...body, protocolId: id }));
});

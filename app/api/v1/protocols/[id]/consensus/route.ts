import { requireApiPermission } from "@/lib/auth/guard";
import { getDb } from "@/lib/db/client";
import { apiRoute, parseInput, readJsonBody } from "@/lib/http/route";
import { consensusBodySchema, protocolIdSchema } from "@/lib/review/route-input";
import { setConsensus } from "@/lib/review/store";

export const dynamic = "force-dynamic";

/** Reconciles one field of a protocol to a consensus code with its rationale (409 on a stale version). */
export const PUT = apiRoute(async (request: Request, context: { params: Promise<{ id: string }> }) => {
  const principal = await requireApiPermission(request, "review:reconcile");
  const { id } = parseInput(protocolIdSchema, await context.params, "path");
  const body = parseInput(consensusBodySchema, await readJsonBody(request), "body");
  const saved = await setConsensus(getDb(), principal.userId, { ...body, protocolId: id });
  return Response.json({ code: saved.code, rationale: saved.rationale, version: saved.version });
});

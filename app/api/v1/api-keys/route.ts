import { createApiKey, listApiKeys } from "@/lib/auth/accounts";
import { requireApiPermission } from "@/lib/auth/guard";
import { can } from "@/lib/auth/permissions";
import { newApiKeySchema } from "@/lib/auth/schemas";
import { getAuth } from "@/lib/auth/server";
import { getDb } from "@/lib/db/client";
import { ApiError, apiRoute, parseInput, readJsonBody } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** The caller's own keys (an admin sees everyone's with ?all=true). Never the keys themselves. */
export const GET = apiRoute(async (request: Request) => {
  const principal = await requireApiPermission(request, "account:self");
  const all = new URL(request.url).searchParams.get("all") === "true";
  if (all && !can(principal.role, "users:admin")) throw new ApiError(403, "forbidden", "all: only an admin may list every user's keys", "all");
  return Response.json({ apiKeys: await listApiKeys(getDb(), all ? undefined : principal.userId) }, { headers: { "cache-control": "no-store" } });
});

/** A new key for the caller (an admin may name another user): the answer holds the key, shown this once. */
export const POST = apiRoute(async (request: Request) => {
  const principal = await requireApiPermission(request, "account:self");
  const input = parseInput(newApiKeySchema, await readJsonBody(request), "body");
  const userId = input.userId ?? principal.userId;
  if (userId !== principal.userId) {
    if (!can(principal.role, "users:admin")) throw new ApiError(403, "forbidden", "userId: only an admin may create a key for another user", "userId");
    if (!(await getDb().user.findUnique({ where: { id: userId }, select: { id: true } }))) throw new ApiError(404, "not_found", `userId: user ${userId} not found`, "userId");
  }
  const created = await createApiKey(getAuth(), userId, input.name);
  return Response.json(created, { status: 201, headers: { "cache-control": "no-store" } });
});

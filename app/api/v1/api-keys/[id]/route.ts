import { revokeApiKey } from "@/lib/auth/accounts";
import { requireApiPermission } from "@/lib/auth/guard";
import { can } from "@/lib/auth/permissions";
import { pathIdSchema } from "@/lib/auth/schemas";
import { getDb } from "@/lib/db/client";
import { apiRoute, parseInput } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** Revokes a key at once: one's own, or (an admin) anyone's. */
export const DELETE = apiRoute(async (request: Request, context: { params: Promise<{ id: string }> }) => {
  const principal = await requireApiPermission(request, "account:self");
  const { id } = parseInput(pathIdSchema, await context.params, "path");
  await revokeApiKey(getDb(), id, { userId: principal.userId, isAdmin: can(principal.role, "users:admin") });
  return new Response(null, { status: 204 });
});

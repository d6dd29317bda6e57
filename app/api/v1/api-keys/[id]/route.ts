import { revokeApiKey } from "@/lib/auth/accounts";
import { can } from "@/lib/auth/permissions";
import { pathIdSchema } from "@/lib/auth/account-schemas";
import { getPrincipalResolver } from "@/lib/auth/server";
import { getDb } from "@/lib/db/web-process-db";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** Revokes a key at once: one's own, or (an admin) anyone's. */
export const DELETE = apiRoute({ permission: "account:self", params: pathIdSchema }, async ({ principal, params }) => {
  await revokeApiKey(getDb(), params.id, { userId: principal.userId, isAdmin: can(principal.role, "users:admin") });
  getPrincipalResolver().forgetApiKey(params.id);
  return new Response(null, { status: 204 });
});

import { setAccountRole } from "@/lib/auth/accounts";
import { pathIdSchema, setRoleSchema } from "@/lib/auth/account-schemas";
import { getPrincipalResolver } from "@/lib/auth/server";
import { getDb } from "@/lib/db/web-process-db";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** Sets a user's role (their sessions end, so the new role applies at once). */
export const PATCH = apiRoute({ permission: "users:admin", params: pathIdSchema, body: setRoleSchema }, async ({ params, body }) => {
  const account = await setAccountRole(getDb(), params.id, body.role);
  getPrincipalResolver().forgetUser(params.id);
  return Response.json(account);
});

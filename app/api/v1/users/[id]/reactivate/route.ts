import { pathIdSchema } from "@/lib/auth/account-schemas";
import { getPrincipalResolver } from "@/lib/auth/server";
import { setAccountActive } from "@/lib/auth/set-account-active";
import { getDb } from "@/lib/db/web-process-db";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** Reactivates a deactivated account: its API keys work again and it can sign in (its old sessions stay ended). */
export const POST = apiRoute({ permission: "users:admin", params: pathIdSchema }, async ({ principal, params }) => {
  const account = await setAccountActive(getDb(), { userId: params.id, active: true, actor: principal });
  getPrincipalResolver().forgetUser(params.id);
  return Response.json(account);
});

import { resetAccountPassword } from "@/lib/auth/reset-account-password";
import { pathIdSchema, resetPasswordSchema } from "@/lib/auth/account-schemas";
import { getAuth, getPrincipalResolver } from "@/lib/auth/server";
import { getDb } from "@/lib/db/web-process-db";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** An admin sets a user's new password (`{password}`): the old one stops working and every session of theirs ends. */
export const POST = apiRoute({ permission: "users:admin", params: pathIdSchema, body: resetPasswordSchema }, async ({ params, body }) => {
  await resetAccountPassword(getAuth(), getDb(), params.id, body.password);
  getPrincipalResolver().forgetUser(params.id);
  return new Response(null, { status: 204 });
});

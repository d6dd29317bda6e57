import { deactivateUserSchema, pathIdSchema } from "@/lib/auth/account-schemas";
import { getPrincipalResolver } from "@/lib/auth/server";
import { setAccountActive } from "@/lib/auth/set-account-active";
import { getDb } from "@/lib/db/web-process-db";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/**
 * Deactivates an account (optional body `{reason}`): its sessions end and its API keys are refused,
 * at once in this process and within 2 s in the others. Not oneself, not the last active admin (409).
 */
export const POST = apiRoute(
  { permission: "users:admin", params: pathIdSchema, body: deactivateUserSchema },
  async ({ principal, params, body }) => {
    const account = await setAccountActive(getDb(), { userId: params.id, active: false, actor: principal, reason: body.reason });
    getPrincipalResolver().forgetUser(params.id);
    return Response.json(account);
  },
);

import { createAccount, listAccounts } from "@/lib/auth/accounts";
import { newUserSchema } from "@/lib/auth/account-schemas";
import { getAuth } from "@/lib/auth/server";
import { getDb } from "@/lib/db/web-process-db";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ permission: "users:admin" }, async () => Response.json({ users: await listAccounts(getDb()) }));

/** An admin creates an account with its role (there is no self sign-up). */
export const POST = apiRoute({ permission: "users:admin", body: newUserSchema }, async ({ body }) =>
  Response.json(await createAccount(getAuth(), body), { status: 201 }),
);

import { createAccount, listAccounts } from "@/lib/auth/accounts";
import { requireApiPermission } from "@/lib/auth/guard";
import { newUserSchema } from "@/lib/auth/schemas";
import { getAuth } from "@/lib/auth/server";
import { getDb } from "@/lib/db/client";
import { apiRoute, parseInput, readJsonBody } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async (request: Request) => {
  await requireApiPermission(request, "users:admin");
  return Response.json({ users: await listAccounts(getDb()) }, { headers: { "cache-control": "no-store" } });
});

/** An admin creates an account with its role (there is no self sign-up). */
export const POST = apiRoute(async (request: Request) => {
  await requireApiPermission(request, "users:admin");
  const input = parseInput(newUserSchema, await readJsonBody(request), "body");
  return Response.json(await createAccount(getAuth(), input), { status: 201 });
});

import { createApiKeyFor, listApiKeys } from "@/lib/auth/accounts";
import { can } from "@/lib/auth/permissions";
import { listApiKeysQuerySchema, newApiKeySchema } from "@/lib/auth/account-schemas";
import { getAuth } from "@/lib/auth/server";
import { getDb } from "@/lib/db/web-process-db";
import { forbidden } from "@/lib/errors";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** The caller's own keys (an admin sees everyone's with ?all=true). Never the keys themselves. */
export const GET = apiRoute({ permission: "account:self", query: listApiKeysQuerySchema }, async ({ principal, query }) => {
  if (query.all && !can(principal.role, "users:admin")) throw forbidden("all: only an admin may list every user's keys", "all");
  return Response.json({ apiKeys: await listApiKeys(getDb(), query.all ? undefined : principal.userId) });
});

/** A new key for the caller (an admin may name another user): the answer holds the key, shown this once. */
export const POST = apiRoute({ permission: "account:self", body: newApiKeySchema }, async ({ principal, body }) =>
  Response.json(await createApiKeyFor(getAuth(), getDb(), principal, body), { status: 201 }),
);

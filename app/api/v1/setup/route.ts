import { createFirstAdmin } from "@/lib/auth/accounts";
import { firstAdminSchema } from "@/lib/auth/account-schemas";
import { getAuth } from "@/lib/auth/server";
import { getDb } from "@/lib/db/web-process-db";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** First-run setup: creates the first admin, and only while no account exists (409 after). */
export const POST = apiRoute({ permission: "public", body: firstAdminSchema }, async ({ body }) =>
  Response.json(await createFirstAdmin(getAuth(), getDb(), body), { status: 201 }),
);

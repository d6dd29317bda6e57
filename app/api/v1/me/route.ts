import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** Who the caller is: their account and role, and whether they came with a session or an API key. */
export const GET = apiRoute({ permission: "account:self" }, async ({ principal }) => Response.json(principal));

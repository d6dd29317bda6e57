import { requireApiPermission } from "@/lib/auth/guard";
import { apiRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** Who the caller is: their account and role, and whether they came with a session or an API key. */
export const GET = apiRoute(async (request: Request) => {
  const principal = await requireApiPermission(request, "account:self");
  return Response.json(principal, { headers: { "cache-control": "no-store" } });
});

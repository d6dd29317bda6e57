import { requireApiPermission } from "@/lib/auth/guard";
import { can } from "@/lib/auth/permissions";
import { getDb } from "@/lib/db/client";
import { baseUrlOf, readServerEnv } from "@/lib/env";
import { ApiError, apiRoute, parseInput, readJsonBody } from "@/lib/http/route";
import { createShareLinkSchema } from "@/lib/share/schemas";
import { createShareLink, listShareLinks } from "@/lib/share/share-links";

export const dynamic = "force-dynamic";

/** The caller's share links with use counts and last use (an admin sees every link with ?all=true). */
export const GET = apiRoute(async (request: Request) => {
  const principal = await requireApiPermission(request, "share:create");
  const all = new URL(request.url).searchParams.get("all") === "true";
  if (all && !can(principal.role, "share:admin")) throw new ApiError(403, "forbidden", "all: only an admin may list every share link", "all");
  return Response.json({ shareLinks: await listShareLinks(getDb(), all ? {} : { createdById: principal.userId }) }, { headers: { "cache-control": "no-store" } });
});

/** A read-only link to one experiment or run; the answer holds the URL with its token, shown this once. */
export const POST = apiRoute(async (request: Request) => {
  const principal = await requireApiPermission(request, "share:create");
  const input = parseInput(createShareLinkSchema, await readJsonBody(request), "body");
  const env = readServerEnv();
  const { token, link } = await createShareLink(getDb(), principal, input, { defaultExpiryDays: env.SHARE_LINK_DEFAULT_DAYS });
  return Response.json({ url: `${baseUrlOf(env)}/s/${token}`, link }, { status: 201, headers: { "cache-control": "no-store" } });
});

import { can } from "@/lib/auth/permissions";
import { getDb } from "@/lib/db/client";
import { baseUrlOf, readServerEnv } from "@/lib/env";
import { ApiError } from "@/lib/http/errors";
import { apiRoute } from "@/lib/http/route";
import { createShareLinkSchema, listShareLinksQuerySchema } from "@/lib/share/schemas";
import { createShareLink, listShareLinks } from "@/lib/share/share-links";

export const dynamic = "force-dynamic";

/** The caller's share links with use counts and last use (an admin sees every link with ?all=true). */
export const GET = apiRoute({ permission: "share:create", query: listShareLinksQuerySchema }, async ({ principal, query }) => {
  if (query.all && !can(principal.role, "share:admin")) throw new ApiError(403, "forbidden", "all: only an admin may list every share link", "all");
  return Response.json({ shareLinks: await listShareLinks(getDb(), query.all ? {} : { createdById: principal.userId }) });
});

/** A read-only link to one experiment or run; the answer holds the URL with its token, shown this once. */
export const POST = apiRoute({ permission: "share:create", body: createShareLinkSchema }, async ({ principal, body }) => {
  const env = readServerEnv();
  const { token, link } = await createShareLink(getDb(), principal, body, { defaultExpiryDays: env.SHARE_LINK_DEFAULT_DAYS });
  return Response.json({ url: `${baseUrlOf(env)}/s/${token}`, link }, { status: 201 });
});

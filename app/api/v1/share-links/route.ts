import { getDb } from "@/lib/db/web-process-db";
import { baseUrlOf, readServerEnv } from "@/lib/env";
import { apiRoute } from "@/lib/http/route/api-route";
import { createShareLinkSchema, listShareLinksQuerySchema } from "@/lib/share/share-link-schemas";
import { createShareLink, visibleShareLinks } from "@/lib/share/share-links";

export const dynamic = "force-dynamic";

/**
 * The caller's share links with status, uses and last use (an admin sees every link with ?all=true);
 * with ?resourceType=…&resourceId=… only the links to that resource (an admin's: every user's).
 */
export const GET = apiRoute({ permission: "share:create", query: listShareLinksQuerySchema }, async ({ principal, query }) =>
  Response.json({ shareLinks: await visibleShareLinks(getDb(), principal, query) }),
);

/** A read-only link to one experiment or run; the answer holds the URL with its token, shown this once. */
export const POST = apiRoute({ permission: "share:create", body: createShareLinkSchema }, async ({ principal, body }) => {
  const env = readServerEnv();
  const { token, link } = await createShareLink(getDb(), principal, body, { defaultExpiryDays: env.SHARE_LINK_DEFAULT_DAYS });
  return Response.json({ url: `${baseUrlOf(env)}/s/${token}`, link }, { status: 201 });
});

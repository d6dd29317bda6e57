import { getDb } from "@/lib/db/web-process-db";
import { apiRoute } from "@/lib/http/route/api-route";
import { shareLinkIdSchema } from "@/lib/share/share-link-schemas";
import { revokeShareLink } from "@/lib/share/share-links";

export const dynamic = "force-dynamic";

/** Revokes a link at once: one's own, or (an admin) anyone's. Its next opening shows "link revoked". */
export const POST = apiRoute({ permission: "share:create", params: shareLinkIdSchema }, async ({ principal, params }) =>
  Response.json(await revokeShareLink(getDb(), principal, params.id)),
);

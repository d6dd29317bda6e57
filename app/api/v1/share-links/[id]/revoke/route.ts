import { requireApiPermission } from "@/lib/auth/guard";
import { getDb } from "@/lib/db/client";
import { apiRoute, parseInput } from "@/lib/http/route";
import { shareLinkIdSchema } from "@/lib/share/schemas";
import { revokeShareLink } from "@/lib/share/share-links";

export const dynamic = "force-dynamic";

/** Revokes a link at once: one's own, or (an admin) anyone's. Its next opening shows "link revoked". */
export const POST = apiRoute(async (request: Request, context: { params: Promise<{ id: string }> }) => {
  const principal = await requireApiPermission(request, "share:create");
  const { id } = parseInput(shareLinkIdSchema, await context.params, "path");
  return Response.json(await revokeShareLink(getDb(), principal, id));
});

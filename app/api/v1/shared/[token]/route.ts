import { z } from "zod";
import { getDb } from "@/lib/db/web-process-db";
import { apiRoute } from "@/lib/http/route/api-route";
import { lookUpShareLink } from "@/lib/share/access";
import { statusOf } from "@/lib/http/errors";
import { shareRefusal } from "@/lib/share/refusal";

export const dynamic = "force-dynamic";

const tokenSchema = z.strictObject({ token: z.string().max(200) });

/**
 * What a share link shows, as JSON, for anyone holding its token (no account): exactly its one
 * resource, the frozen snapshot with its content hash, or the live resource. Refusals say why.
 */
export const GET = apiRoute({ permission: "public", params: tokenSchema }, async ({ request, params }) => {
  const opened = await lookUpShareLink(getDb(), request.headers, params.token);
  const refusal = shareRefusal(opened);
  const headers: Record<string, string> = { "cache-control": "private, no-store" };
  if (opened.status === "rate_limited") headers["retry-after"] = String(opened.retryAfterSeconds);
  if (refusal)
    return Response.json({ error: { code: refusal.code, message: refusal.message } }, { status: statusOf(refusal.kind), headers });
  return Response.json(opened, { headers });
});

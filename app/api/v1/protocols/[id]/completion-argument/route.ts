import { getDb } from "@/lib/db/web-process-db";
import { notFound } from "@/lib/errors";
import { apiRoute } from "@/lib/http/route/api-route";
import { argumentLatex, argumentMarkdown } from "@/lib/review/completion-export";
import { argumentQuerySchema, argumentRevisionSchema } from "@/lib/review/completion-schema";
import { argumentView, saveArgument } from "@/lib/review/completion-store";
import { protocolIdSchema, viewerOf } from "@/lib/review/route-input";

export const dynamic = "force-dynamic";

const fileName = (name: string, ext: string) => `completion-argument-${name.replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 80)}.${ext}`;
const attachment = (name: string, type: string, body: string) =>
  new Response(body, { headers: { "content-type": `${type}; charset=utf-8`, "content-disposition": `attachment; filename="${name}"` } });

/** The argument's current version, every revision, its evidence and status; or an export (?format=markdown|latex|json). */
export const GET = apiRoute(
  { permission: "results:read", params: protocolIdSchema, query: argumentQuerySchema },
  async ({ principal, params, query }) => {
    const view = await argumentView(getDb(), viewerOf(principal), params.id);
    if (!view) throw notFound(`protocol ${params.id}`);
    if (query.format === "markdown") return attachment(fileName(view.protocol.name, "md"), "text/markdown", argumentMarkdown(view));
    if (query.format === "latex") return attachment(fileName(view.protocol.name, "tex"), "application/x-tex", argumentLatex(view));
    if (query.format === "json")
      return Response.json(view, { headers: { "content-disposition": `attachment; filename="${fileName(view.protocol.name, "json")}"` } });
    return Response.json(view);
  },
);

/** A new version of the argument with its reason (editors and admins); 409 with both versions on a stale one. */
export const POST = apiRoute(
  { permission: "protocol:write", params: protocolIdSchema, body: argumentRevisionSchema },
  async ({ principal, params, body }) => Response.json(await saveArgument(getDb(), viewerOf(principal), params.id, body), { status: 201 }),
);

import { getDb } from "@/lib/db/client";
import { apiRoute } from "@/lib/http/route";
import { matrixQuerySchema, matrixShow, viewerOf } from "@/lib/review/route-input";
import { matrixView } from "@/lib/review/views";

export const dynamic = "force-dynamic";

/** The protocol matrix (consensus, the paper's, or one reviewer's codes), Table 3 live, and agreement per field. */
export const GET = apiRoute({ permission: "results:read", query: matrixQuerySchema }, async ({ principal, query }) =>
  Response.json(await matrixView(getDb(), viewerOf(principal), matrixShow(query.show, principal))),
);

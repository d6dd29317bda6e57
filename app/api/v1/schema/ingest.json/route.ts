import { ingestJsonSchema } from "@/lib/evaluations/json-schema";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/** The JSON Schema of the ingest body (POST /api/v1/evaluations/{id}/runs), generated from its zod schema. Public: it is documentation. */
export const GET = apiRoute({ permission: "public" }, async () =>
  Response.json(ingestJsonSchema(), { headers: { "cache-control": "public, max-age=300" } }),
);

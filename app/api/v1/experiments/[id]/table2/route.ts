import { z } from "zod";
import { csvResponse } from "@/lib/experiments/read/csv";
import { table2Export } from "@/lib/experiments/read/table2-export";
import { getDb } from "@/lib/db/web-process-db";
import { notFound } from "@/lib/errors";
import { cachedExperimentSummary } from "@/lib/experiments/cached-summary";
import { experimentIdSchema } from "@/lib/experiments/experiment-schemas";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

const querySchema = z.strictObject({ format: z.enum(["csv", "json"], "format must be csv or json").default("json") });

/** The Table 2 reproduction as a download: every figure as numerator and denominator, CSV or JSON. */
export const GET = apiRoute({ permission: "results:read", params: experimentIdSchema, query: querySchema }, async ({ params, query }) => {
  const summary = await cachedExperimentSummary(getDb(), params.id);
  if (!summary) throw notFound(`experiment ${params.id}`);
  const exported = table2Export(summary);
  const filename = `boundary-lab-table2-${params.id}.${query.format}`;
  if (query.format === "json") return Response.json(exported, { headers: { "content-disposition": `attachment; filename="${filename}"` } });
  return csvResponse(filename, exported.records, [
    "test",
    "condition",
    "measure",
    "numerator",
    "denominator",
    "value",
    "wilson95_lower",
    "wilson95_upper",
  ]);
});

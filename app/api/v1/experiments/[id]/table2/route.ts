import { z } from "zod";
import { csvResponse } from "@/lib/dashboard/csv";
import { experimentExists } from "@/lib/dashboard/runs";
import { table2Export } from "@/lib/dashboard/table2-export";
import { getDb } from "@/lib/db/client";
import { experimentIdSchema } from "@/lib/experiments/schemas";
import { notFound } from "@/lib/http/errors";
import { apiRoute } from "@/lib/http/route";
import { experimentSummary } from "@/lib/replay/summary";

export const dynamic = "force-dynamic";

const querySchema = z.strictObject({ format: z.enum(["csv", "json"], "format must be csv or json").default("json") });

/** The Table 2 reproduction as a download: every figure as numerator and denominator, CSV or JSON. */
export const GET = apiRoute({ permission: "results:read", params: experimentIdSchema, query: querySchema }, async ({ params, query }) => {
  const db = getDb();
  if (!(await experimentExists(db, params.id))) throw notFound(`experiment ${params.id}`);
  const exported = table2Export(await experimentSummary(db, params.id));
  const filename = `boundary-lab-table2-${params.id}.${query.format}`;
  if (query.format === "json") return Response.json(exported, { headers: { "content-disposition": `attachment; filename="${filename}"` } });
  return csvResponse(filename, exported.records, ["test", "condition", "measure", "numerator", "denominator", "value"]);
});

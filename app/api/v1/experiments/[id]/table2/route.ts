import { stringify } from "csv-stringify/sync";
import { z } from "zod";
import { requireApiPermission } from "@/lib/auth/guard";
import { table2Export } from "@/lib/dashboard/table2-export";
import { getDb } from "@/lib/db/client";
import { apiRoute, experimentIdSchema, notFound, parseInput } from "@/lib/http/route";
import { experimentSummary } from "@/lib/replay/summary";

export const dynamic = "force-dynamic";

const querySchema = z.strictObject({ format: z.enum(["csv", "json"], "format must be csv or json").default("json") });

/** The Table 2 reproduction as a download: every figure as numerator and denominator, CSV or JSON. */
export const GET = apiRoute(async (request: Request, context: { params: Promise<{ id: string }> }) => {
  await requireApiPermission(request, "results:read");
  const { id } = parseInput(experimentIdSchema, await context.params, "path");
  const { format } = parseInput(querySchema, Object.fromEntries(new URL(request.url).searchParams), "query");
  const db = getDb();
  if (!(await db.experiment.findUnique({ where: { id }, select: { id: true } }))) throw notFound(`experiment ${id}`);
  const exported = table2Export(await experimentSummary(db, id));
  const filename = `boundary-lab-table2-${id}.${format}`;
  const headers = { "content-disposition": `attachment; filename="${filename}"`, "cache-control": "no-store" };
  if (format === "json") return Response.json(exported, { headers });
  const csv = stringify(exported.records, { header: true, columns: ["test", "condition", "measure", "numerator", "denominator", "value"] });
  return new Response(csv, { headers: { ...headers, "content-type": "text/csv; charset=utf-8" } });
});

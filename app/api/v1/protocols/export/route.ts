import { stringify } from "csv-stringify/sync";
import { requireApiPermission } from "@/lib/auth/guard";
import { getDb } from "@/lib/db/client";
import { apiRoute, parseInput } from "@/lib/http/route";
import { tableA1Latex, table3Latex } from "@/lib/review/latex";
import { exportQuerySchema } from "@/lib/review/route-input";
import { consensusMatrix, reviewLedger } from "@/lib/review/store";
import { computeTable3 } from "@/lib/review/table3";

export const dynamic = "force-dynamic";

/** The consensus matrix and every visible ledger (CSV, JSON), or Table 3 and Table A.1 in LaTeX. */
export const GET = apiRoute(async (request: Request) => {
  await requireApiPermission(request, "review:reconcile");
  const { format } = parseInput(exportQuerySchema, Object.fromEntries(new URL(request.url).searchParams), "query");
  const db = getDb();
  const { protocols, matrix } = await consensusMatrix(db);
  const attachment = (name: string, type: string, body: string) =>
    new Response(body, { headers: { "content-type": `${type}; charset=utf-8`, "content-disposition": `attachment; filename="${name}"`, "cache-control": "no-store" } });
  if (format === "latex-table3") return attachment("table3.tex", "application/x-tex", table3Latex(computeTable3(protocols, matrix)));
  if (format === "latex-a1") return attachment("table-a1.tex", "application/x-tex", tableA1Latex(protocols, matrix));
  const ledger = await reviewLedger(db);
  if (format === "json") return Response.json({ protocols, consensus: matrix, ledger }, { headers: { "content-disposition": 'attachment; filename="protocol-review.json"' } });
  return attachment(
    "protocol-review-ledger.csv",
    "text/csv",
    stringify(ledger, { header: true, columns: ["protocol", "field", "reviewer", "code", "sourceLocation", "basis", "citations", "sourcesReadOn", "version", "consensus"] }),
  );
});

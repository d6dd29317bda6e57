import { csvResponse } from "@/lib/experiments/read/csv";
import { getDb } from "@/lib/db/web-process-db";
import { apiRoute } from "@/lib/http/route/api-route";
import { tableA1Latex, table3Latex } from "@/lib/review/latex";
import { exportQuerySchema } from "@/lib/review/route-input";
import { consensusMatrix, reviewLedger } from "@/lib/review/review-codes-store";
import { computeTable3 } from "@/lib/review/table3";

export const dynamic = "force-dynamic";

const attachment = (name: string, type: string, body: string) =>
  new Response(body, { headers: { "content-type": `${type}; charset=utf-8`, "content-disposition": `attachment; filename="${name}"` } });

/** The consensus matrix and every visible ledger (CSV, JSON), or Table 3 and Table A.1 in LaTeX; each marks a consensus resting on one reviewer, with the reviewer count. */
export const GET = apiRoute({ permission: "review:reconcile", query: exportQuerySchema }, async ({ query }) => {
  const db = getDb();
  const { protocols, reference, matrix, reviewers } = await consensusMatrix(db);
  if (query.format === "latex-table3")
    return attachment("table3.tex", "application/x-tex", table3Latex(computeTable3(reference, matrix, reviewers)));
  if (query.format === "latex-a1") return attachment("table-a1.tex", "application/x-tex", tableA1Latex(protocols, matrix, reviewers));
  const ledger = await reviewLedger(db);
  if (query.format === "json")
    return Response.json(
      { protocols, consensus: matrix, consensusReviewers: reviewers, ledger },
      { headers: { "content-disposition": 'attachment; filename="protocol-review.json"' } },
    );
  return csvResponse("protocol-review-ledger.csv", ledger, [
    "protocol",
    "field",
    "reviewer",
    "code",
    "sourceLocation",
    "basis",
    "citations",
    "sourcesReadOn",
    "version",
    "consensus",
    "consensusReviewers",
  ]);
});

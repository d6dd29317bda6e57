import { z } from "zod";
import { getDb } from "@/lib/db/web-process-db";
import { EVALUATION_NAME_MAX } from "@/lib/evaluations/vocabulary";
import { invalid } from "@/lib/errors";
import { optional } from "@/lib/http/pagination";
import { apiRoute } from "@/lib/http/route/api-route";
import { importUpload } from "@/lib/importers/import-upload";

export const dynamic = "force-dynamic";

const text = (field: string, max: number) =>
  z.string().trim().min(1, `${field} must not be empty`).max(max, `${field} must be at most ${max} characters`);
const importQuerySchema = z.strictObject({
  /** The uploaded file's name, as the report names it. */
  file: text("file", 500),
  evaluation: optional(text("evaluation", EVALUATION_NAME_MAX)),
  threshold: optional(z.coerce.number("threshold must be a number").finite("threshold must be a number")),
  /** The scorer whose values label the runs (an Inspect log's `scores` key); the first scorer when absent. */
  scorer: optional(text("scorer", 200)),
});

/**
 * Imports one log file sent as the raw body (`POST /api/v1/imports?file=NAME[&evaluation=NAME][&threshold=X][&scorer=NAME]`):
 * answers the report of `npm run import` for that file (docs/importers.md); 400 naming `scorer` when no log of it has that
 * scorer (nothing imported).
 */
export const POST = apiRoute({ permission: "evaluation:write", query: importQuerySchema }, async ({ request, principal, query }) => {
  const length = request.headers.get("content-length");
  const upload = { body: request.body, declaredBytes: length === null ? null : Number(length), fileName: query.file };
  const report = await importUpload(getDb(), upload, {
    evaluationName: query.evaluation,
    threshold: query.threshold,
    scorer: query.scorer,
    createdById: principal.userId,
  });
  const withoutScorer = report.skipped.find((s) => s.field === "scorer");
  if (withoutScorer && report.imported + report.unchanged === 0) throw invalid(withoutScorer.reason, "scorer");
  return Response.json(report);
});

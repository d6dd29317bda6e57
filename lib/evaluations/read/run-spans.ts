// A run's OpenTelemetry spans as received (live_run_spans), for the run page's timeline.
import { z } from "zod";
import type { SqlClient } from "../../db/sql-transaction";
import { rowsOf } from "../../db/rows";
import type { StoredSpan } from "./span-timeline";

/** The most spans the page shows of one run (the first by start). */
export const MAX_SPANS_SHOWN = 2_000;

const spanRow = z.object({
  span_id: z.string(),
  parent_span_id: z.string().nullable(),
  name: z.string(),
  start_at: z.date(),
  end_at: z.date(),
  status_code: z.number(),
  tool: z.string().nullable(),
});

export async function runSpans(db: SqlClient, evaluationId: string, externalId: string): Promise<StoredSpan[]> {
  return rowsOf(
    spanRow,
    await db.$queryRaw`
      WITH run AS (SELECT id, first_spans FROM live_runs WHERE evaluation_id = ${evaluationId}::uuid AND external_id = ${externalId}),
           spans AS (
             SELECT s.* FROM live_run_spans s JOIN run ON run.id = s.live_run_id
             UNION ALL -- the first request's spans while they are kept whole (lib/evaluations/live/first-batch.ts)
             SELECT s.* FROM run, jsonb_populate_recordset(NULL::live_run_spans, run.first_spans::jsonb) AS s
           )
      SELECT s.span_id, s.parent_span_id, s.name, s.start_at, s.end_at, s.status_code,
             coalesce(s.attributes->>'gen_ai.tool.name', s.attributes->>'ai.toolCall.name') AS tool
        FROM spans s
       ORDER BY s.start_at, s.span_id
       LIMIT ${MAX_SPANS_SHOWN}`,
  ).map((row) => ({
    spanId: row.span_id,
    parentSpanId: row.parent_span_id,
    name: row.name,
    startMs: row.start_at.getTime(),
    endMs: row.end_at.getTime(),
    statusCode: row.status_code,
    tool: row.tool,
  }));
}

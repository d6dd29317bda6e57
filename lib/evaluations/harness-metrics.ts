// The figures a harness reported itself for a log it wrote (Inspect's results.scores[].metrics: a
// scorer's accuracy, mean, stderr), stored by the log with the evaluation its runs went to, and
// shown beside the success rates, which are thresholded: a mean counts partial credit in part.
import { z } from "zod";
import type { SqlClient } from "../db/sql-transaction";
import { rowsOf } from "../db/rows";

export interface HarnessMetric {
  /** The log: Inspect's task id (or run id). */
  source: string;
  scorer: string;
  metric: string;
  value: number;
}

const metricRow = z.object({ source: z.string(), scorer: z.string(), metric: z.string(), value: z.number() });

/** Stores a log's figures, replacing what an earlier import of the same log stored (as text: a float array parameter loses the last digit). */
export async function storeHarnessMetrics(db: SqlClient, evaluationId: string, metrics: readonly HarnessMetric[]): Promise<void> {
  if (metrics.length === 0) return;
  await db.$executeRaw`
    INSERT INTO evaluation_harness_metrics (evaluation_id, source, scorer, metric, value)
    SELECT ${evaluationId}::uuid, x.source, x.scorer, x.metric, x.value
      FROM unnest(${metrics.map((m) => m.source)}::text[], ${metrics.map((m) => m.scorer)}::text[], ${metrics.map((m) => m.metric)}::text[],
                  ${metrics.map((m) => String(m.value))}::text[]::float8[]) AS x(source, scorer, metric, value)
    ON CONFLICT (evaluation_id, source, scorer, metric) DO UPDATE SET value = EXCLUDED.value, recorded_at = now()`;
}

/** The evaluation's harness figures, by log, scorer and metric. */
export async function listHarnessMetrics(db: SqlClient, evaluationId: string): Promise<HarnessMetric[]> {
  // Raw SQL on the evaluation page's path: Prisma compiles a model query on every call (~0.5 ms of CPU).
  return rowsOf(
    metricRow,
    await db.$queryRaw`SELECT source, scorer, metric, value FROM evaluation_harness_metrics
                        WHERE evaluation_id = ${evaluationId}::uuid ORDER BY source, scorer, metric`,
  );
}

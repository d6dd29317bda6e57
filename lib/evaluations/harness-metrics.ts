// The figures a harness reported itself for a log it wrote (Inspect's results.scores[].metrics: a
// scorer's accuracy, mean, stderr), stored by the log with the evaluation its runs went to, and
// shown beside the success rates, which are thresholded: a mean counts partial credit in part.
import type { Db } from "../db/prisma";

export interface HarnessMetric {
  /** The log: Inspect's task id (or run id). */
  source: string;
  scorer: string;
  metric: string;
  value: number;
}

/** Stores a log's figures, replacing what an earlier import of the same log stored. */
export async function storeHarnessMetrics(db: Db, evaluationId: string, metrics: readonly HarnessMetric[]): Promise<void> {
  if (metrics.length === 0) return;
  await db.$executeRaw`
    INSERT INTO evaluation_harness_metrics (evaluation_id, source, scorer, metric, value)
    SELECT ${evaluationId}::uuid, x.source, x.scorer, x.metric, x.value
      FROM unnest(${metrics.map((m) => m.source)}::text[], ${metrics.map((m) => m.scorer)}::text[], ${metrics.map((m) => m.metric)}::text[],
                  ${metrics.map((m) => m.value)}::float8[]) AS x(source, scorer, metric, value)
    ON CONFLICT (evaluation_id, source, scorer, metric) DO UPDATE SET value = EXCLUDED.value, recorded_at = now()`;
}

/** The evaluation's harness figures, by log, scorer and metric. */
export async function listHarnessMetrics(db: Db, evaluationId: string): Promise<HarnessMetric[]> {
  const rows = await db.evaluationHarnessMetric.findMany({
    where: { evaluationId },
    orderBy: [{ source: "asc" }, { scorer: "asc" }, { metric: "asc" }],
    select: { source: true, scorer: true, metric: true, value: true },
  });
  return rows;
}

import { z } from "zod";
import type { Db } from "../../db/prisma";
import { FINALITY_POLICIES } from "../../replay/rules/config";
import { rowsOf } from "../../db/rows";

const int = z.coerce.number().int();
const rowSchema = z.object({ policy: z.enum(FINALITY_POLICIES), delay_ms: int, trials: int, successes: int, disagreements: int });
const countRow = z.object({ n: z.number() });

export interface FinalityDelayRow {
  policy: (typeof FINALITY_POLICIES)[number];
  delayMs: number;
  trials: number;
  successes: number;
  /** Trials whose endpoint label differs from their terminal label. */
  disagreements: number;
}

/**
 * Finality trials per policy and nominal delay, counted in PostgreSQL: the disagreement-by-delay chart.
 * Read from run_summary_cells, the runs' counts that triggers keep exact (migration run_summary):
 * the same figures as counting the runs, at any number of runs.
 */
export async function finalityByDelay(db: Db, experimentId: string): Promise<FinalityDelayRow[]> {
  const rows = await db.$queryRaw`
    SELECT condition AS policy, delay_ms,
           sum(runs)::bigint AS trials,
           sum(successes)::bigint AS successes,
           sum(disagreements)::bigint AS disagreements
      FROM run_summary_cells WHERE experiment_id = ${experimentId}::uuid AND test = 'finality'
     GROUP BY condition, delay_ms HAVING sum(runs) > 0 ORDER BY condition, delay_ms`;
  return rowsOf(rowSchema, rows).map((r) => ({
    policy: r.policy,
    delayMs: r.delay_ms,
    trials: r.trials,
    successes: r.successes,
    disagreements: r.disagreements,
  }));
}

/** Stored runs whose terminal label is unresolved, whatever their classification (a count in SQL, from run_summary_cells). */
export async function unresolvedRuns(db: Db, experimentId: string): Promise<number> {
  const [row] = rowsOf(
    countRow,
    await db.$queryRaw`
    SELECT coalesce(sum(unresolved), 0)::int AS n FROM run_summary_cells WHERE experiment_id = ${experimentId}::uuid`,
  );
  return row?.n ?? 0;
}

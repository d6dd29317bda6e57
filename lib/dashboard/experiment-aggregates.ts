import { z } from "zod";
import type { Db } from "../db/prisma";
import { FINALITY_POLICIES } from "../replay/config";

const int = z.coerce.number().int();
const rowSchema = z.object({ policy: z.enum(FINALITY_POLICIES), delay_ms: int, trials: int, successes: int, disagreements: int });

export interface FinalityDelayRow {
  policy: (typeof FINALITY_POLICIES)[number];
  delayMs: number;
  trials: number;
  successes: number;
  /** Trials whose endpoint label differs from their terminal label. */
  disagreements: number;
}

/** Finality trials per policy and nominal delay, counted in PostgreSQL: the disagreement-by-delay chart. */
export async function finalityByDelay(db: Db, experimentId: string): Promise<FinalityDelayRow[]> {
  const rows = await db.$queryRaw`
    SELECT condition AS policy, delay_ms,
           count(*) AS trials,
           count(*) FILTER (WHERE recorded_label = 'success') AS successes,
           count(*) FILTER (WHERE endpoint_label IS NOT NULL AND terminal_label IS NOT NULL AND endpoint_label <> terminal_label) AS disagreements
      FROM runs WHERE experiment_id = ${experimentId}::uuid AND test = 'finality'
     GROUP BY condition, delay_ms ORDER BY condition, delay_ms`;
  return z
    .array(rowSchema)
    .parse(rows)
    .map((r) => ({ policy: r.policy, delayMs: r.delay_ms, trials: r.trials, successes: r.successes, disagreements: r.disagreements }));
}

/** Stored runs whose terminal label is unresolved, whatever their classification (a count in SQL). */
export async function unresolvedRuns(db: Db, experimentId: string): Promise<number> {
  const [row] = await db.$queryRaw<Array<{ n: number }>>`
    SELECT count(*)::int AS n FROM runs WHERE experiment_id = ${experimentId}::uuid AND terminal_label = 'unresolved'`;
  return row?.n ?? 0;
}

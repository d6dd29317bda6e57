// The experiment summary as it was computed before the run_summary tables: every figure aggregated
// from the runs themselves. Kept as the reference the fast summary (lib/replay/store/summary.ts) must
// equal exactly, in its tests and in `npm run bench:dashboard`. It reads every run of the
// experiment: seconds at a million runs, so never on a request path.
import { z } from "zod";
import type { Db } from "../db/prisma";
import { Prisma } from "../generated/prisma/client";
import { replayConfigSchema } from "../replay/rules/config";
import { disagreesSql } from "../replay/rules/labels";
import { assembleSummary } from "../replay/store/summary";
import type { ReplaySummary } from "../replay/rules/summary-schema";

const int = z.coerce.number().int();
const delayRow = z.object({ nominal_ms: int, median_ms: z.coerce.number(), p99_ms: z.coerce.number(), n: int });

const DISAGREES = Prisma.raw(disagreesSql());

/** The summary from the runs table alone (the queries of lib/replay/store/summary.ts before the run_summary tables). */
export async function referenceExperimentSummary(db: Db, experimentId: string): Promise<ReplaySummary> {
  const experiment = await db.experiment.findUniqueOrThrow({ where: { id: experimentId }, select: { config: true, wallMs: true } });
  const config = replayConfigSchema.parse(experiment.config);

  const [finality, separation, delays, classes, checks] = await Promise.all([
    db.$queryRaw`
      SELECT condition AS policy,
             count(*) AS trials,
             count(*) FILTER (WHERE recorded_label = 'success') AS successes,
             count(*) FILTER (WHERE delay_ms > 0) AS trials_nonzero,
             count(*) FILTER (WHERE delay_ms > 0 AND recorded_label = 'success') AS successes_nonzero,
             count(*) FILTER (WHERE ${DISAGREES}) AS disagreements,
             count(*) FILTER (WHERE delay_ms > 0 AND ${DISAGREES}) AS disagreements_nonzero
        FROM runs WHERE experiment_id = ${experimentId}::uuid AND test = 'finality'
       GROUP BY condition`,
    db.$queryRaw`
      SELECT condition,
             count(DISTINCT group_id) AS pairs,
             count(*) FILTER (WHERE role = 'B' AND exposure) AS exposures,
             count(*) AS run_rows,
             count(DISTINCT group_id) AS groups,
             avg(score) FILTER (WHERE role = 'B') AS mean_score_b
        FROM runs WHERE experiment_id = ${experimentId}::uuid AND test = 'separation'
       GROUP BY condition`,
    db.$queryRaw`
      SELECT delay_ms AS nominal_ms,
             percentile_cont(0.5) WITHIN GROUP (ORDER BY measured_delay_ms) AS median_ms,
             percentile_cont(0.99) WITHIN GROUP (ORDER BY measured_delay_ms) AS p99_ms,
             count(*) AS n
        FROM runs WHERE experiment_id = ${experimentId}::uuid AND measured_delay_ms IS NOT NULL
       GROUP BY delay_ms ORDER BY delay_ms`,
    db.$queryRaw`
      SELECT classification, count(*) AS n FROM runs WHERE experiment_id = ${experimentId}::uuid GROUP BY classification`,
    db.implementationCheck.findMany({
      where: { experimentId },
      select: { name: true, passed: true, evidence: true },
      orderBy: { position: "asc" },
    }),
  ]);

  return assembleSummary({
    experimentId,
    config,
    wallMs: experiment.wallMs,
    finality,
    separation,
    classes,
    delays: z
      .array(delayRow)
      .parse(delays)
      .map((d) => ({ nominalMs: d.nominal_ms, medianMs: d.median_ms, p99Ms: d.p99_ms, n: d.n })),
    checks,
  });
}

import { z } from "zod";
import type { Db } from "../../db/prisma";
import { RUN_CLASSIFICATIONS } from "../rules/classification";
import { FINALITY_POLICIES, SEPARATION_CONDITIONS, replayConfigSchema, type ReplayConfig, type SeparationCondition } from "../rules/config";
import { analysisUnits } from "../rules/separation-rules";
import type { ReplaySummary } from "../rules/summary-schema";

const int = z.coerce.number().int();

const finalityRow = z.object({
  policy: z.enum(FINALITY_POLICIES),
  trials: int,
  successes: int,
  trials_nonzero: int,
  successes_nonzero: int,
  disagreements: int,
  disagreements_nonzero: int,
});
const separationRow = z.object({
  condition: z.enum(SEPARATION_CONDITIONS),
  pairs: int,
  exposures: int,
  run_rows: int,
  groups: int,
  mean_score_b: z.coerce.number().nullable(),
});
const rankRow = z.object({ delay_ms: int, n: int, quantile: int, pos: z.number(), lo: int, hi: int, vals: z.array(z.number()) });
const classificationRow = z.object({ classification: z.enum(RUN_CLASSIFICATIONS), n: int });
const experimentRows = z.array(z.object({ config: z.unknown(), wall_ms: z.number().nullable() }));
const checkRows = z.array(z.object({ name: z.string(), passed: z.boolean(), evidence: z.string() }));

/** The quantiles of the measured delays, as percentile_cont(0.5) and percentile_cont(0.99). */
const QUANTILES = [0.5, 0.99] as const;

/**
 * percentile_cont's interpolation (PostgreSQL orderedsetaggs.c and float8_lerp): the values at
 * 0-based positions floor(pos) and ceil(pos) of the sorted column, where pos = q × (n − 1), are
 * combined as lo + (pos − floor(pos)) × (hi − lo), in the same IEEE double operations.
 */
export function interpolate(values: readonly number[], pos: number, lo: number, hi: number): number {
  const first = values[0];
  if (first === undefined || (lo !== hi && values[1] === undefined)) throw new Error(`percentile: rows ${lo}..${hi} missing`);
  if (lo === hi) return first;
  return first + (pos - lo) * (values[1]! - first);
}

/**
 * The experiment's summary, aggregated in PostgreSQL. Counts come from run_summary_cells and
 * run_summary_group_counts, which triggers on runs keep exact in every writer's transaction (migration
 * run_summary); the measured-delay median and p99 read the two values percentile_cont interpolates
 * from the index runs_measured_delay_idx, at OFFSET floor(q × (n − 1)) from the nearer end. The output is
 * exactly what aggregating the runs themselves gives (lib/testing/summary-reference.ts), at a cost that
 * does not grow with the number of runs but for the median's index walk.
 */
export async function experimentSummary(db: Db, experimentId: string): Promise<ReplaySummary> {
  // Raw SQL throughout: the experiment page reads this on every request, and Prisma compiles a model query on every call (~0.5 ms of CPU).
  const [experiment] = experimentRows.parse(await db.$queryRaw`SELECT config, wall_ms FROM experiments WHERE id = ${experimentId}::uuid`);
  if (!experiment) throw new Error(`experiment ${experimentId} not found`);
  const config = replayConfigSchema.parse(experiment.config);

  const [finality, separation, ranks, classes, checks] = await Promise.all([
    db.$queryRaw`
      SELECT condition AS policy,
             sum(runs)::bigint AS trials,
             sum(successes)::bigint AS successes,
             coalesce(sum(runs) FILTER (WHERE delay_ms > 0), 0)::bigint AS trials_nonzero,
             coalesce(sum(successes) FILTER (WHERE delay_ms > 0), 0)::bigint AS successes_nonzero,
             sum(disagreements)::bigint AS disagreements,
             coalesce(sum(disagreements) FILTER (WHERE delay_ms > 0), 0)::bigint AS disagreements_nonzero
        FROM run_summary_cells WHERE experiment_id = ${experimentId}::uuid AND test = 'finality'
       GROUP BY condition HAVING sum(runs) > 0`,
    // avg(score) is numeric division of sum(score) by count(score) (int8_avg): the same division here.
    db.$queryRaw`
      SELECT c.condition, coalesce(g.groups, 0) AS pairs, c.exposures, c.run_rows, coalesce(g.groups, 0) AS groups,
             CASE WHEN c.score_n > 0 THEN c.score_sum::numeric / c.score_n::numeric END AS mean_score_b
        FROM (SELECT experiment_id, test, condition,
                     coalesce(sum(exposures) FILTER (WHERE role = 'B'), 0)::bigint AS exposures,
                     sum(runs)::bigint AS run_rows,
                     coalesce(sum(score_sum) FILTER (WHERE role = 'B'), 0) AS score_sum,
                     coalesce(sum(score_n) FILTER (WHERE role = 'B'), 0) AS score_n
                FROM run_summary_cells WHERE experiment_id = ${experimentId}::uuid AND test = 'separation'
               GROUP BY experiment_id, test, condition HAVING sum(runs) > 0) c
        LEFT JOIN run_summary_group_counts g ON g.experiment_id = c.experiment_id AND g.test = c.test AND g.condition = c.condition`,
    // One statement, so that the counts and the index walk see the same runs (one snapshot).
    db.$queryRaw`
      WITH counts AS (
        SELECT delay_ms, sum(measured_n)::bigint AS n
          FROM run_summary_cells WHERE experiment_id = ${experimentId}::uuid
         GROUP BY delay_ms HAVING sum(measured_n) > 0
      ), ranks AS (
        SELECT delay_ms, n, quantile, pos, floor(pos)::bigint AS lo, ceil(pos)::bigint AS hi
          FROM counts CROSS JOIN unnest(${[...QUANTILES]}::float8[]) WITH ORDINALITY AS quantiles(q, quantile)
               CROSS JOIN LATERAL (SELECT q * (n - 1)::float8 AS pos) p
      )
      SELECT delay_ms, n, quantile, pos, lo, hi,
             CASE WHEN lo <= n - 1 - hi
               THEN ARRAY(SELECT measured_delay_ms FROM runs
                           WHERE experiment_id = ${experimentId}::uuid AND delay_ms = ranks.delay_ms AND measured_delay_ms IS NOT NULL
                           ORDER BY measured_delay_ms OFFSET ranks.lo LIMIT ranks.hi - ranks.lo + 1)
               ELSE ARRAY(SELECT v FROM (SELECT measured_delay_ms AS v FROM runs
                                          WHERE experiment_id = ${experimentId}::uuid AND delay_ms = ranks.delay_ms AND measured_delay_ms IS NOT NULL
                                          ORDER BY measured_delay_ms DESC OFFSET ranks.n - 1 - ranks.hi LIMIT ranks.hi - ranks.lo + 1) top
                          ORDER BY v)
             END AS vals
        FROM ranks ORDER BY delay_ms, quantile`,
    db.$queryRaw`
      SELECT classification, sum(runs)::bigint AS n FROM run_summary_cells WHERE experiment_id = ${experimentId}::uuid
       GROUP BY classification HAVING sum(runs) > 0`,
    db.$queryRaw`SELECT name, passed, evidence FROM implementation_checks WHERE experiment_id = ${experimentId}::uuid ORDER BY position`,
  ]);

  // Two rows per nominal delay, in order: its median (quantile 1) and its p99 (quantile 2).
  const rankRows = z.array(rankRow).parse(ranks);
  const delays = rankRows
    .filter((row) => row.quantile === 1)
    .map((median) => {
      const p99 = rankRows.find((row) => row.delay_ms === median.delay_ms && row.quantile === 2)!;
      return {
        nominalMs: median.delay_ms,
        medianMs: interpolate(median.vals, median.pos, median.lo, median.hi),
        p99Ms: interpolate(p99.vals, p99.pos, p99.lo, p99.hi),
        n: median.n,
      };
    });

  return assembleSummary({
    experimentId,
    config,
    wallMs: experiment.wall_ms,
    finality,
    separation,
    classes,
    delays,
    checks: checkRows.parse(checks),
  });
}

/** The aggregate rows of a summary query, as PostgreSQL returned them, and what they are read into. */
export interface SummaryRows {
  experimentId: string;
  config: Pick<ReplayConfig, "delaysMs" | "schedules" | "repetitions">;
  wallMs: number | null;
  /** Rows of policy, trials, successes, trials_nonzero, successes_nonzero, disagreements, disagreements_nonzero. */
  finality: unknown;
  /** Rows of condition, pairs, exposures, run_rows, groups, mean_score_b. */
  separation: unknown;
  /** Rows of classification, n. */
  classes: unknown;
  delays: ReplaySummary["delays"];
  checks: ReplaySummary["checks"];
}

/** Reads the aggregate rows into the summary's shape, every policy and condition in the config's canonical order. */
export function assembleSummary(rows: SummaryRows): ReplaySummary {
  const finalityRows = z.array(finalityRow).parse(rows.finality);
  const separationRows = z.array(separationRow).parse(rows.separation);
  const classifications = Object.fromEntries(RUN_CLASSIFICATIONS.map((c) => [c, 0])) as ReplaySummary["classifications"];
  for (const row of z.array(classificationRow).parse(rows.classes)) classifications[row.classification] = row.n;
  return {
    experimentId: rows.experimentId,
    config: { delaysMs: rows.config.delaysMs, schedules: rows.config.schedules, repetitions: rows.config.repetitions },
    finality: FINALITY_POLICIES.flatMap((policy) => {
      const row = finalityRows.find((r) => r.policy === policy);
      return row
        ? [
            {
              policy,
              trials: row.trials,
              successes: row.successes,
              trialsNonzeroDelay: row.trials_nonzero,
              successesNonzeroDelay: row.successes_nonzero,
              disagreements: row.disagreements,
              disagreementsNonzeroDelay: row.disagreements_nonzero,
            },
          ]
        : [];
    }),
    separation: SEPARATION_CONDITIONS.flatMap((condition: SeparationCondition) => {
      const row = separationRows.find((r) => r.condition === condition);
      return row
        ? [
            {
              condition,
              pairs: row.pairs,
              exposures: row.exposures,
              runRows: row.run_rows,
              analysisUnits: analysisUnits(condition, row.run_rows, row.groups),
              meanScoreB: row.mean_score_b,
            },
          ]
        : [];
    }),
    delays: rows.delays,
    checks: rows.checks.map((c) => ({ name: c.name, passed: c.passed, evidence: c.evidence })),
    classifications,
    wallMs: rows.wallMs ?? 0,
  };
}

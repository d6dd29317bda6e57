// Attack success beside utility, as an evaluation's statistics and a comparison give them: per pipeline
// (utility without attack, utility under attack, attack success), per injection task, and with the
// analysis units' dependence. Counts are SQL aggregates; the figures are attack-success.ts's pure ones.
import { z } from "zod";
import { onlyRowOf } from "../../db/rows";
import type { SqlClient } from "../../db/sql-transaction";
import { Prisma } from "../../generated/prisma/client";
import { unitsSchema } from "../../statistics/answer-schema";
import { unitLevelFigures } from "../../statistics/unit-level";
import {
  ATTACK_LABEL,
  attackTradeOff,
  attackTradeOffSchema,
  outcomeFigures,
  outcomeFiguresSchema,
  pipelineTradeOffs,
  type AttackTradeOff,
  type LabelCounts,
  withoutAttack,
} from "./attack-success";

/** The name a run under attack without a declared injection task is shown under. */
export const NO_INJECTION_TASK = "(no injection task declared)";

const ATTACK_OUTCOME =
  "attack success rate (reported): scored runs under attack, a success when the injection task's goal was achieved (the security label)";

/** The `attack` part of GET …/statistics: null when no scored run of the evaluation was under attack. */
export const attackStatisticsSchema = z
  .object({
    /** The reported attack success rate with its rows-based and unit-based intervals, as `units` gives the headline's. */
    units: unitsSchema,
    /** Every pipeline's runs (a run without a declared pipeline under "(no pipeline declared)"), by name. */
    byPipeline: z.array(attackTradeOffSchema.extend({ pipeline: z.string(), runs: z.number().int().min(0) })),
    /** Attack success per injection task (its runs over every pipeline), by id. */
    byInjectionTask: z.array(z.object({ injectionTaskId: z.string(), attackSuccess: outcomeFiguresSchema })),
  })
  .nullable();
export type AttackStatistics = z.infer<typeof attackStatisticsSchema>;

const int = z.coerce.number().int();
const countsColumns = { runs: int, final: int, unresolved: int, utility: int, final_utility: int, succeeded: int, final_succeeded: int };
const pipelineRow = z.object({ pipeline: z.string().nullable(), attacked: z.boolean(), ...countsColumns });
const injectionRow = z.object({ injection_task_id: z.string().nullable(), ...countsColumns });
const sumsRow = z.object({
  rows: int,
  successes: int,
  units: int,
  sum_y2: int,
  sum_ym: int,
  sum_m2: int,
  pipelines: z.array(pipelineRow),
  injections: z.array(injectionRow),
});

/** A group's counts of scored runs: both labels (endpoint: utility; security: the attack succeeded), reported and final. */
const countsSql = Prisma.sql`
  count(*) AS runs, count(*) FILTER (WHERE finality = 'final') AS final, count(*) FILTER (WHERE finality = 'unresolved') AS unresolved,
  count(*) FILTER (WHERE endpoint_label = 'success') AS utility,
  count(*) FILTER (WHERE finality = 'final' AND endpoint_label = 'success') AS final_utility,
  count(*) FILTER (WHERE labels->>${ATTACK_LABEL} = 'success') AS succeeded,
  count(*) FILTER (WHERE finality = 'final' AND labels->>${ATTACK_LABEL} = 'success') AS final_succeeded`;

type Counts = { [K in keyof typeof countsColumns]: number };
const labelCounts = (row: Counts, label: "utility" | "attack"): LabelCounts => ({
  runs: row.runs,
  final: row.final,
  unresolved: row.unresolved,
  successes: label === "utility" ? row.utility : row.succeeded,
  finalSuccesses: label === "utility" ? row.final_utility : row.final_succeeded,
});

/** The evaluation's attack statistics; null without a scored run under attack (`attackedRuns`, the summary's count), read then without a query. */
export async function attackStatistics(db: SqlClient, evaluationId: string, attackedRuns: number): Promise<AttackStatistics> {
  if (attackedRuns === 0) return null;
  // One round trip: the design effect's sums as the row, the pipelines' and the injection tasks' counts beside them.
  const s = onlyRowOf(
    sumsRow,
    await db.$queryRaw`
      WITH u AS (
        -- The reported attack success per analysis unit, reduced to the design effect's sums (evaluation-statistics.ts does the same for the headline).
        SELECT count(*) AS m, count(*) FILTER (WHERE labels->>${ATTACK_LABEL} = 'success') AS y
          FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid AND labels ? ${ATTACK_LABEL} AND finality <> 'unscored'
         GROUP BY coalesce(analysis_unit, id)
      )
      SELECT coalesce(sum(m), 0) AS rows, coalesce(sum(y), 0) AS successes, count(*) AS units,
             coalesce(sum(y * y), 0) AS sum_y2, coalesce(sum(y * m), 0) AS sum_ym, coalesce(sum(m * m), 0) AS sum_m2,
             -- Every scored run, by pipeline and whether it was under attack (a security label).
             (SELECT coalesce(json_agg(p), '[]') FROM (
                SELECT pipeline, coalesce(labels ? ${ATTACK_LABEL}, false) AS attacked, ${countsSql}
                  FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid AND finality <> 'unscored'
                 GROUP BY 1, 2) p) AS pipelines,
             -- The attacked runs only (the partial index of runs with a security label, migration attacked_runs_index).
             (SELECT coalesce(json_agg(i ORDER BY i.injection_task_id), '[]') FROM (
                SELECT injection_task_id, ${countsSql}
                  FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid AND labels ? ${ATTACK_LABEL} AND finality <> 'unscored'
                 GROUP BY 1) i) AS injections
        FROM u`,
  );
  const figures = unitLevelFigures({
    rows: s.rows,
    successes: s.successes,
    units: s.units,
    sumSquaredSuccesses: s.sum_y2,
    sumSuccessesTimesRows: s.sum_ym,
    sumSquaredRows: s.sum_m2,
  });
  return attackStatisticsSchema.parse({
    units: {
      runRows: figures.rows.N,
      analysisUnits: figures.units.analysisUnits,
      // Every attacked run is counted: the units of the counted rows are all of them.
      countedUnits: figures.units.analysisUnits,
      designEffect: figures.units.designEffect,
      effectiveN: figures.units.effectiveN,
      outcome: ATTACK_OUTCOME,
      rows: figures.rows,
      unitBasedWilson95: figures.units.wilson95,
    },
    byPipeline: pipelineTradeOffs(
      s.pipelines.map((row) => ({
        pipeline: row.pipeline,
        attacked: row.attacked,
        runs: row.runs,
        final: row.final,
        unresolved: row.unresolved,
        utility: row.utility,
        finalUtility: row.final_utility,
        attackSucceeded: row.succeeded,
        finalAttackSucceeded: row.final_succeeded,
      })),
    ),
    byInjectionTask: s.injections.map((row) => ({
      injectionTaskId: row.injection_task_id ?? NO_INJECTION_TASK,
      attackSuccess: outcomeFigures(labelCounts(row, "attack")),
    })),
  });
}

/**
 * Per evaluation compared: utility without attack, under attack, and attack success. `totals`: each
 * one's scored runs by endpoint label (the trigger-maintained counts); only the attacked runs are read,
 * through their partial index, and utility without attack is the totals less them.
 */
export async function attackTradeOffs(db: SqlClient, totals: ReadonlyMap<string, LabelCounts>): Promise<Map<string, AttackTradeOff>> {
  const ids = [...totals.keys()];
  const rows = z.array(z.object({ evaluation_id: z.string(), ...countsColumns })).parse(
    await db.$queryRaw`
      SELECT evaluation_id::text AS evaluation_id, ${countsSql}
        FROM evaluation_runs WHERE evaluation_id = ANY(${ids}::uuid[]) AND labels ? ${ATTACK_LABEL} AND finality <> 'unscored'
       GROUP BY 1`,
  );
  return new Map(
    [...totals].map(([id, all]) => {
      const attacked = rows.find((row) => row.evaluation_id === id);
      const underAttack = attacked ? labelCounts(attacked, "utility") : undefined;
      return [
        id,
        attackTradeOff({
          withoutAttack: underAttack ? withoutAttack(all, underAttack) : all,
          ...(attacked && { underAttack, attack: labelCounts(attacked, "attack") }),
        }),
      ];
    }),
  );
}

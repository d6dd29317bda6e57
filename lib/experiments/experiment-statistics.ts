// The experiment's statistics (docs/statistics.md, The experiment's answer): every rate with its population and Wilson interval, the
// rows-based and unit-based figures with the design effect, pass^k where trials are separate
// units, the exclusion rule's identity and the sensitivity to its alternatives. The counts are
// aggregated in PostgreSQL (the summary's count tables, and two GROUP BYs over the runs that
// return one row per condition and per task); the formulas are the pure ones in lib/statistics.
import { z } from "zod";
import type { Db } from "../db/prisma";
import { RUN_CLASSIFICATIONS } from "../replay/rules/classification";
import { FINALITY_POLICIES, SEPARATION_CONDITIONS } from "../replay/rules/config";
import { CONDITION_LABELS, POLICY_LABELS } from "../format/replay-labels";
import type { ReplaySummary } from "../replay/rules/summary-schema";
import { applyExclusionRule, emptyClassOutcomes, type ClassOutcomeCounts, type ExclusionRule } from "../statistics/exclusion-rule";
import { currentExclusionRule, whoDeclared } from "../statistics/exclusion-rule-store";
import { completionOutcomes, completionRate, lessExcluded, namedRate, type NamedRate } from "../statistics/named-rate";
import { INHERITED_STATES } from "../replay/rules/inherited-state";
import { passK, type TaskTrials } from "../statistics/pass-k";
import { sensitivity, thresholdChecks } from "../statistics/sensitivity";
import { addClusterSums, unitLevelFigures, type ClusterSums } from "../statistics/unit-level";
import { cachedExperimentSummary, finishedExperimentCache } from "./cached-summary";
import { experimentStatisticsSchema, type ExperimentStatistics } from "./statistics-schema";

const int = z.coerce.number().int();
const test = z.enum(["finality", "separation"]);
const inherited = z.enum(INHERITED_STATES);

const cellRow = z.object({
  test,
  condition: z.string(),
  classification: z.enum(RUN_CLASSIFICATIONS),
  runs: int,
  successes: int,
  scored: int,
});
const unitRow = z.object({
  test,
  condition: z.string(),
  inherited,
  run_rows: int,
  analysis_units: int,
  scored_rows: int,
  successes: int,
  scored_units: int,
  sum_y2: int,
  sum_ym: int,
  sum_m2: int,
});
const taskRow = z.object({
  test,
  condition: z.string(),
  schedule_id: int,
  delay_ms: int,
  trials: int,
  successes: int,
  units: int,
  inherited,
});

const SCORE_OUTCOME = "the run's recorded label is success (score 1) among runs with a score";

export async function experimentStatistics(db: Db, experimentId: string): Promise<ExperimentStatistics> {
  const summary = await cachedExperimentSummary(db, experimentId);
  if (!summary) throw new Error(`experiment ${experimentId} does not exist`);
  const states = [...INHERITED_STATES];
  const [cells, units, tasks] = await Promise.all([
    // Finality trials at nonzero delay by class and recorded label, from the count tables.
    db.$queryRaw`
      SELECT test, condition, classification, sum(runs)::bigint AS runs, sum(successes)::bigint AS successes, sum(score_n)::bigint AS scored
        FROM run_summary_cells WHERE experiment_id = ${experimentId}::uuid AND test = 'finality' AND delay_ms > 0
       GROUP BY test, condition, classification`,
    // Per condition: the design effect's sums over analysis units. A group any of whose runs
    // inherited state is one unit (its runs are connected); otherwise each run is its own.
    db.$queryRaw`
      WITH groups AS (
        SELECT test, condition, group_id, max(array_position(${states}::text[], inherited_state)) AS inherited,
               count(*) AS runs, count(score) AS scored, coalesce(sum(score), 0) AS successes
          FROM runs WHERE experiment_id = ${experimentId}::uuid
         GROUP BY test, condition, group_id
      )
      SELECT test, condition, (${states}::text[])[max(inherited)] AS inherited,
             sum(runs)::bigint AS run_rows,
             sum(CASE WHEN inherited > 1 THEN 1 ELSE runs END)::bigint AS analysis_units,
             sum(scored)::bigint AS scored_rows,
             sum(successes)::bigint AS successes,
             sum(CASE WHEN inherited > 1 THEN (scored > 0)::int ELSE scored END)::bigint AS scored_units,
             sum(CASE WHEN inherited > 1 THEN successes * successes ELSE successes END)::bigint AS sum_y2,
             sum(CASE WHEN inherited > 1 THEN successes * scored ELSE successes END)::bigint AS sum_ym,
             sum(CASE WHEN inherited > 1 THEN scored * scored ELSE scored END)::bigint AS sum_m2
        FROM groups GROUP BY test, condition`,
    // Per task (condition, schedule, delay): the trials whose outcome the condition measures,
    // a finality trial or a pair's B run, with their distinct units and what they inherited.
    db.$queryRaw`
      SELECT test, condition, schedule_id, delay_ms, count(*)::bigint AS trials,
             count(*) FILTER (WHERE recorded_label = 'success')::bigint AS successes,
             count(DISTINCT group_id)::bigint AS units,
             (${states}::text[])[max(array_position(${states}::text[], inherited_state))] AS inherited
        FROM runs WHERE experiment_id = ${experimentId}::uuid AND role IN ('single', 'B')
       GROUP BY test, condition, schedule_id, delay_ms ORDER BY test, condition, schedule_id, delay_ms`,
  ]);

  const declared = await currentExclusionRule(db, { kind: "experiment", id: experimentId });
  const rule = declared.rule;
  const { rates, sensitivity: sensitivityRows } = ratesAndSensitivity(rule, summary, z.array(cellRow).parse(cells));
  const unitRows = orderedByCondition(z.array(unitRow).parse(units));
  const taskRows = z.array(taskRow).parse(tasks);
  const tasksOf = (test: string, condition: string) =>
    tasksFrom(taskRows.filter((task) => task.test === test && task.condition === condition));
  return experimentStatisticsSchema.parse({
    experimentId,
    rates,
    sensitivity: sensitivityRows,
    units: unitsFigures(
      unitRows.reduce((total, row) => total + row.run_rows, 0),
      unitRows.reduce((total, row) => total + row.analysis_units, 0),
      addClusterSums(...unitRows.map(clusterSumsOf)),
    ),
    passK: passK(tasksFrom(taskRows)),
    conditions: unitRows.map((row) => ({
      test: row.test,
      condition: row.condition,
      inheritedState: row.inherited,
      units: unitsFigures(row.run_rows, row.analysis_units, clusterSumsOf(row)),
      passK: passK(tasksOf(row.test, row.condition)),
    })),
    exclusionRule: {
      version: declared.version,
      hash: declared.hash,
      canonical: declared.canonical,
      rule,
      ...whoDeclared(declared),
    },
    thresholdChecks: thresholdChecks(rule.threshold, sensitivityRows),
  });
}

/** The rates (completion, each policy's success and disagreement at nonzero delays, each condition's exposure) and the rule-dependent ones' sensitivity. */
function ratesAndSensitivity(
  rule: ExclusionRule,
  summary: ReplaySummary,
  cells: Array<z.infer<typeof cellRow>>,
): Pick<ExperimentStatistics, "rates" | "sensitivity"> {
  const finalityCounts = new Map<string, ClassOutcomeCounts>();
  for (const row of cells) {
    const counts = finalityCounts.get(row.condition) ?? emptyClassOutcomes();
    const outcomes = counts[row.classification];
    outcomes.success += row.successes;
    outcomes.failure += row.scored - row.successes;
    outcomes.unresolved += row.runs - row.scored;
    finalityCounts.set(row.condition, counts);
  }

  const { excluded: _completionExcluded, ...completion } = completionRate(rule, summary.classifications);
  const rates: NamedRate[] = [completion];
  const sensitivityRows: ExperimentStatistics["sensitivity"] = sensitivity(rule, completionOutcomes(summary.classifications)).map(
    (row) => ({ measure: completion.name, ...row }),
  );
  for (const policy of summary.finality) {
    const counts = finalityCounts.get(policy.policy) ?? emptyClassOutcomes();
    const successRate = applyExclusionRule(rule, counts);
    const name = `${POLICY_LABELS[policy.policy]}: success rate at nonzero delays`;
    rates.push(
      namedRate(name, `finality trials at nonzero delays${lessExcluded(rule, successRate.excluded)}`, successRate.n, successRate.N),
    );
    sensitivityRows.push(...sensitivity(rule, counts).map((row) => ({ measure: name, ...row })));
    rates.push(
      namedRate(
        `${POLICY_LABELS[policy.policy]}: endpoint ≠ terminal at nonzero delays`,
        "finality trials at nonzero delays whose endpoint label differs from their terminal one",
        policy.disagreementsNonzeroDelay,
        policy.trialsNonzeroDelay,
      ),
    );
  }
  for (const condition of summary.separation) {
    rates.push(
      namedRate(
        `${CONDITION_LABELS[condition.condition]}: exposure rate`,
        "A/B pairs: A's write changed the value scored in B",
        condition.exposures,
        condition.pairs,
      ),
    );
  }
  return { rates, sensitivity: sensitivityRows };
}

type UnitRow = z.infer<typeof unitRow>;

/** Policies, then conditions, in the config's canonical order. */
function orderedByCondition(rows: UnitRow[]): UnitRow[] {
  const order = [...FINALITY_POLICIES.map((c) => `finality/${c}`), ...SEPARATION_CONDITIONS.map((c) => `separation/${c}`)];
  return [...rows].sort((a, b) => order.indexOf(`${a.test}/${a.condition}`) - order.indexOf(`${b.test}/${b.condition}`));
}

function clusterSumsOf(row: UnitRow): ClusterSums {
  return {
    rows: row.scored_rows,
    successes: row.successes,
    units: row.scored_units,
    sumSquaredSuccesses: row.sum_y2,
    sumSuccessesTimesRows: row.sum_ym,
    sumSquaredRows: row.sum_m2,
  };
}

function unitsFigures(runRows: number, analysisUnits: number, sums: ClusterSums): ExperimentStatistics["units"] {
  const figures = unitLevelFigures(sums);
  return {
    runRows,
    analysisUnits,
    countedUnits: figures.units.analysisUnits,
    designEffect: figures.units.designEffect,
    effectiveN: figures.units.effectiveN,
    outcome: SCORE_OUTCOME,
    rows: figures.rows,
    unitBasedWilson95: figures.units.wilson95,
  };
}

function tasksFrom(rows: Array<z.infer<typeof taskRow>>): TaskTrials[] {
  return rows.map((row) => ({
    taskId: `${row.condition}, schedule ${row.schedule_id}, ${row.delay_ms} ms`,
    trials: row.trials,
    successes: row.successes,
    analysisUnits: row.units,
    inheritedState: row.inherited,
  }));
}

/** The statistics, or null when there is no such experiment; a finished experiment's are computed once per process. */
export const cachedExperimentStatistics = finishedExperimentCache(experimentStatistics);

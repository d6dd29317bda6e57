// An evaluation's statistics (docs/statistics.md, The evaluation's answer): its rates with their populations and Wilson intervals,
// rows against analysis units (the audit's connected components) with the design effect, pass^k
// over its tasks where their trials are separate units, the exclusion rule's identity and the
// sensitivity to its alternatives. Counts are SQL aggregates over the stored audit (the summary's
// trigger-maintained counts; one GROUP BY per analysis unit reduced to five sums in SQL; one row
// per task, these cached per audit revision); the formulas are the pure ones in lib/statistics.
import { z } from "zod";
import type { SqlClient } from "../../db/sql-transaction";
import { Prisma } from "../../generated/prisma/client";
import {
  exclusionRuleAnswerSchema,
  passKSchema,
  rateSchema,
  sensitivityRowSchema,
  thresholdCheckSchema,
  unitsSchema,
} from "../../statistics/answer-schema";
import { applyExclusionRule, evaluationOutcomes, type ClassOutcomeCounts, type ExclusionRule } from "../../statistics/exclusion-rule";
import { RUN_CLASSIFICATIONS } from "../../replay/rules/classification";
import type { RuleVersion } from "../../statistics/answer-schema";
import { currentExclusionRule, whoDeclared } from "../../statistics/exclusion-rule-store";
import { countedClasses, legalActionFigure, lessExcluded, namedRate } from "../../statistics/named-rate";
import { passK } from "../../statistics/pass-k";
import { sensitivity, thresholdChecks } from "../../statistics/sensitivity";
import { unitLevelFigures } from "../../statistics/unit-level";
import { attackStatistics, attackStatisticsSchema } from "./attack-statistics";
import { labelRates } from "./attack-success";
import type { EvaluationSummary } from "./read-boundary";
import { INHERITED_STATES } from "../vocabulary";
import { evaluationSummary } from "./summary";

/** GET /api/v1/evaluations/{id}/statistics: docs/statistics.md's contract (`rates`, `units`, `passK`, `exclusionRule`, `sensitivity`). */
export const evaluationStatisticsSchema = z.object({
  evaluationId: z.uuid(),
  /** The effect-policy version the audit behind every figure used. */
  effectPolicyVersion: z.number().int().min(1),
  rates: z.array(rateSchema),
  units: unitsSchema,
  passK: passKSchema,
  exclusionRule: exclusionRuleAnswerSchema,
  sensitivity: z.array(sensitivityRowSchema),
  /** Legal calls over attempted tool calls whose outcome is recorded, or why it cannot be computed; also in `rates` when available. */
  legalActions: z.discriminatedUnion("available", [
    z.object({ available: z.literal(true), rate: rateSchema }),
    z.object({ available: z.literal(false), reason: z.string() }),
  ]),
  /** The rule's declared target for the headline rate, judged under every rule of `sensitivity`; empty without one. */
  thresholdChecks: z.array(thresholdCheckSchema),
  /** Under attack (runs with a security label): attack success with its units, and utility beside it per pipeline and injection task; null without such runs. */
  attack: attackStatisticsSchema,
});
export type EvaluationStatistics = z.infer<typeof evaluationStatisticsSchema>;

const RULE_NOTE = "an ingested run's class is the one its record (or its importer, from the log) gives, completed when it gives none";
const HEADLINE = "success rate";

/** What counts as a success under the rule, in the words every figure under it shows. */
function successDefinition(rule: ExclusionRule): string {
  const { keep, success } = unresolvedTreatment(rule);
  return `a success is a final run whose endpoint label is success${keep ? (success ? "; an unresolved run counts as a success" : "; an unresolved run counts as a failure") : "; unresolved runs are excluded"}`;
}

/** Under the rule: is an unresolved run kept in N, and is it then a success. */
function unresolvedTreatment(rule: ExclusionRule): { keep: boolean; success: boolean } {
  return { keep: rule.unresolved !== "exclude", success: rule.unresolved === "count_as_success" };
}

/** What the rule does to each class, as the aggregates' SQL reads it: the classes kept with their labels, and those counted as failures. */
interface RunTreatment {
  keepUnresolved: boolean;
  unresolvedSucceeds: boolean;
  keptClasses: string[];
  failureClasses: string[];
}

function runTreatment(rule: ExclusionRule): RunTreatment {
  const { keep, success } = unresolvedTreatment(rule);
  return {
    keepUnresolved: keep,
    unresolvedSucceeds: success,
    keptClasses: RUN_CLASSIFICATIONS.filter((c) => rule.classes[c] === "keep"),
    failureClasses: RUN_CLASSIFICATIONS.filter((c) => rule.classes[c] === "count_as_failure"),
  };
}

const int = z.coerce.number().int();
const sumsRow = z.object({ rows: int, successes: int, units: int, sum_y2: int, sum_ym: int, sum_m2: int });
const callsRow = z.object({ calls: int, with_outcome: int, legal: int });
const taskRow = z.object({ task_id: z.string(), trials: int, successes: int, units: int, inherited: z.enum(INHERITED_STATES) });

/**
 * The statistics of one evaluation under its current declared exclusion rule; throws notFound for an unknown id. `loadingSummary`
 * and `loadingRule`: its summary and its current rule, when the caller reads them anyway (the page reads the rule's history).
 */
export async function evaluationStatistics(
  db: SqlClient,
  evaluationId: string,
  loadingSummary: Promise<EvaluationSummary> = evaluationSummary(db, evaluationId),
  loadingRule: Promise<RuleVersion> = currentExclusionRule(db, { kind: "evaluation", id: evaluationId }),
): Promise<EvaluationStatistics> {
  const [summary, declared] = await Promise.all([loadingSummary, loadingRule]);
  const rule = declared.rule;
  const [{ sums: s, passK: passKFigures, calls: c, classes }, attack] = await Promise.all([
    runAggregates(db, evaluationId, runTreatment(rule)),
    attackStatistics(db, evaluationId, summary.attackSuccess.reported.n),
  ]);
  const legalActions = legalActionFigure({ calls: c.calls, withOutcome: c.with_outcome, legal: c.legal });
  const figures = unitLevelFigures({
    rows: s.rows,
    successes: s.successes,
    units: s.units,
    sumSquaredSuccesses: s.sum_y2,
    sumSuccessesTimesRows: s.sum_ym,
    sumSquaredRows: s.sum_m2,
  });
  const outcomes = evaluationOutcomes(
    { finalRuns: summary.final.n, finalSuccesses: summary.final.successes, unresolved: summary.unresolved.n },
    classOutcomes(classes),
  );
  const varyEnvironment = classes.some((row) => row.run_class === "environment_failure");
  const sensitivityRows = sensitivity(rule, outcomes, { varyEnvironment }).map((row) => ({ measure: HEADLINE, ...row }));
  return evaluationStatisticsSchema.parse({
    evaluationId,
    effectPolicyVersion: summary.effectPolicyVersion,
    rates: [...rates(rule, summary, outcomes), ...(legalActions.available ? [legalActions.rate] : []), ...labelRates(summary.outcomes)],
    // Every stored run and its units, as the summary's cards count them; the rows the rule keeps and their units, as the design effect counts them.
    units: {
      runRows: summary.units.runRows,
      analysisUnits: summary.units.analysisUnits,
      countedUnits: figures.units.analysisUnits,
      designEffect: figures.units.designEffect,
      effectiveN: figures.units.effectiveN,
      outcome: `${HEADLINE} under rule version ${rule.version}: ${successDefinition(rule)}`,
      rows: figures.rows,
      unitBasedWilson95: figures.units.wilson95,
    },
    passK: passKFigures,
    exclusionRule: {
      version: declared.version,
      hash: declared.hash,
      canonical: declared.canonical,
      rule,
      ...whoDeclared(declared, RULE_NOTE),
    },
    sensitivity: sensitivityRows,
    legalActions,
    thresholdChecks: thresholdChecks(rule.threshold, sensitivityRows),
    attack,
  });
}

const classRow = z.object({ run_class: z.enum(RUN_CLASSIFICATIONS), successes: int, failures: int, unresolved: int });
type ClassRow = z.infer<typeof classRow>;

/** The scored runs of each class other than completed, by outcome (migration run_classes: a partial index finds them, however many runs are completed). */
export const classCountsSql = (evaluationIds: readonly string[]) => Prisma.sql`
  SELECT evaluation_id::text AS evaluation_id, run_class,
         count(*) FILTER (WHERE finality = 'final' AND endpoint_label = 'success') AS successes,
         count(*) FILTER (WHERE finality = 'final' AND endpoint_label = 'failure') AS failures,
         count(*) FILTER (WHERE finality = 'unresolved') AS unresolved
    FROM evaluation_runs WHERE evaluation_id = ANY(${evaluationIds}::uuid[]) AND run_class <> 'completed' AND finality <> 'unscored'
   GROUP BY 1, 2 ORDER BY 1, 2`;

export const classOutcomes = (rows: readonly ClassRow[]) =>
  Object.fromEntries(rows.map((row) => [row.run_class, { success: row.successes, failure: row.failures, unresolved: row.unresolved }]));
const runAggregatesSchema = z.object({ sums: sumsRow, passK: passKSchema, calls: callsRow, classes: z.array(classRow) });
type RunAggregates = z.infer<typeof runAggregatesSchema>;

const cachedAggregatesRows = z.array(z.object({ revision: int, aggregates: z.unknown() }));

/**
 * The figures of the three aggregates that scan every run (sums per analysis unit; pass^k from one row per task; tool calls by outcome), read from the
 * cache while the evaluation's audit revision (bumped by triggers on every write to its runs) stands,
 * else taken and cached. The revision is read before the scans: a write landing between them leaves a
 * cache labelled with a revision that is already past, never served.
 */
async function runAggregates(db: SqlClient, evaluationId: string, t: RunTreatment): Promise<RunAggregates> {
  const treatment = `${t.keepUnresolved},${t.unresolvedSucceeds},${t.keptClasses.join("+")},${t.failureClasses.join("+")}`;
  // A run is in N when its class is kept (and it is final, or unresolved and the rule keeps those) or counted as a failure (scored);
  // a success when its class is kept and it is a final success, or unresolved and the rule counts those as successes.
  const kept = Prisma.sql`((run_class = ANY(${t.keptClasses}::text[]) AND (finality = 'final' OR (finality = 'unresolved' AND ${t.keepUnresolved})))
                          OR (run_class = ANY(${t.failureClasses}::text[]) AND finality <> 'unscored'))`;
  const succeeded = Prisma.sql`(run_class = ANY(${t.keptClasses}::text[])
                               AND ((finality = 'final' AND endpoint_label = 'success') OR (finality = 'unresolved' AND ${t.unresolvedSucceeds})))`;
  const [current] = cachedAggregatesRows.parse(
    await db.$queryRaw`
      SELECT coalesce(r.revision, 0) AS revision, c.aggregates
        FROM (SELECT 1) one
        LEFT JOIN evaluation_audit_revisions r ON r.evaluation_id = ${evaluationId}::uuid
        LEFT JOIN evaluation_statistics_cache c ON c.evaluation_id = ${evaluationId}::uuid AND c.treatment = ${treatment} AND c.revision = coalesce(r.revision, 0)`,
  );
  const cached = runAggregatesSchema.safeParse(current!.aggregates);
  if (cached.success) return cached.data; // else none, or one of an older shape: taken again
  const states = [...INHERITED_STATES];
  // A run's analysis unit is the smallest run id of its connected component (its own id when alone).
  const [sums, tasks, calls, classes] = await Promise.all([
    db.$queryRaw`
      WITH r AS (
        SELECT coalesce(analysis_unit, id) AS unit, ${kept} AS kept, ${succeeded} AS success
          FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid
      ), u AS (
        SELECT count(*) FILTER (WHERE kept) AS m, count(*) FILTER (WHERE kept AND success) AS y FROM r GROUP BY unit
      )
      SELECT coalesce(sum(m), 0) AS rows, coalesce(sum(y), 0) AS successes, count(*) FILTER (WHERE m > 0) AS units,
             coalesce(sum(y * y), 0) AS sum_y2, coalesce(sum(y * m), 0) AS sum_ym, coalesce(sum(m * m), 0) AS sum_m2
        FROM u`,
    db.$queryRaw`
      SELECT task_id, count(*) AS trials,
             count(*) FILTER (WHERE ${succeeded}) AS successes,
             count(DISTINCT coalesce(analysis_unit, id)) AS units,
             (${states}::text[])[max(array_position(${states}::text[], inherited_state))] AS inherited
        FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid AND ${kept}
       GROUP BY task_id ORDER BY task_id`,
    // Every run's calls (excluded and unscored runs' too: a call is attempted whatever became of its run).
    db.$queryRaw`
      SELECT count(*) AS calls,
             count(*) FILTER (WHERE c ? 'outcome' OR c ? 'error') AS with_outcome,
             count(*) FILTER (WHERE c->>'outcome' = 'ok' AND NOT c ? 'error') AS legal
        FROM evaluation_runs r CROSS JOIN LATERAL jsonb_array_elements(coalesce(r.tool_calls, '[]'::jsonb)) AS c
       WHERE r.evaluation_id = ${evaluationId}::uuid`,
    // The scored runs of the classes other than completed: with the summary's totals, what the rule's headline and its sensitivity take.
    db.$queryRaw(classCountsSql([evaluationId])),
  ]);
  const perTask = z
    .array(taskRow)
    .parse(tasks)
    .map((t) => ({ taskId: t.task_id, trials: t.trials, successes: t.successes, analysisUnits: t.units, inheritedState: t.inherited }));
  const aggregates = {
    sums: z.array(sumsRow).parse(sums)[0]!,
    passK: passK(perTask),
    calls: z.array(callsRow).parse(calls)[0]!,
    classes: z.array(classRow).parse(classes),
  };
  await db.$executeRaw`
    INSERT INTO evaluation_statistics_cache AS c (evaluation_id, treatment, revision, aggregates)
    SELECT id, ${treatment}, ${current!.revision}, ${JSON.stringify(aggregates)}::jsonb FROM evaluations WHERE id = ${evaluationId}::uuid
    ON CONFLICT (evaluation_id, treatment) DO UPDATE SET revision = EXCLUDED.revision, aggregates = EXCLUDED.aggregates WHERE c.revision <= EXCLUDED.revision`;
  return aggregates;
}

/** Each rate under its own name and population: the headline under the rule beside the reported and final-only ones it sits between. */
function rates(rule: ExclusionRule, summary: EvaluationSummary, outcomes: ClassOutcomeCounts) {
  const headline = applyExclusionRule(rule, outcomes);
  return [
    namedRate(
      `${HEADLINE} (rule version ${rule.version})`,
      `${rule.eligiblePopulation ?? "all scored runs"}${lessExcluded(rule, headline.excluded)}${countedClasses(rule, outcomes)}; ${successDefinition(rule)}`,
      headline.n,
      headline.N,
    ),
    namedRate(
      "reported success rate",
      "all scored runs, each with the label the harness recorded at the endpoint",
      summary.reported.successes,
      summary.reported.n,
    ),
    namedRate(
      "final-only success rate",
      "final runs (every relevant effect terminal at scoring)",
      summary.final.successes,
      summary.final.n,
    ),
    namedRate("unresolved rate", "all scored runs: a relevant effect was still open at scoring", summary.unresolved.n, summary.reported.n),
    namedRate(
      "unscored runs",
      "all stored runs: the harness recorded no score (finality unscored); they are in no other rate's population",
      summary.unscored,
      summary.runs,
    ),
    namedRate(
      "endpoint ≠ terminal",
      "runs with a terminal label whose terminal label differs from the endpoint label",
      summary.disagreements.n,
      summary.disagreements.of,
    ),
    namedRate(
      "exposure rate",
      "all runs: the run received another run's state (inherited state internal or public)",
      summary.exposures.n,
      summary.exposures.of,
    ),
  ];
}

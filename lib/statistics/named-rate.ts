// Each measure with its own population (docs/statistics.md, Each measure with its own population): a completion rate over eligible runs, a
// legal-action rate over attempted tool calls, and any narrower rate under its own name and
// denominator, never in place of the all-eligible-run figure. Always n/N with its interval.
import { RUN_CLASSIFICATIONS, type RunClassification } from "../replay/rules/classification";
import { CLASSIFICATION_LABELS } from "../format/replay-labels";
import {
  applyExclusionRule,
  DEFAULT_ELIGIBLE_POPULATION,
  type ClassOutcomeCounts,
  type ExcludedRuns,
  type ExclusionRule,
} from "./exclusion-rule";
import { wilsonInterval, type Interval } from "./wilson";

/** How an excluded group is named on pages and in populations. */
const EXCLUDED_GROUP_LABELS: Record<ExcludedRuns["name"], string> = { ...CLASSIFICATION_LABELS, unresolved: "unresolved" };

/** ", less what rule version V excludes (environment failure: 5)" for a population's words; empty when the rule excludes nothing. */
export function lessExcluded(rule: ExclusionRule, excluded: readonly ExcludedRuns[]): string {
  if (excluded.length === 0) return "";
  return `, less what rule version ${rule.version} excludes (${excluded.map((group) => `${EXCLUDED_GROUP_LABELS[group.name]}: ${group.N}`).join(", ")})`;
}

/**
 * ", counting protocol stop: 4 (kept with their labels)" for a population's words: the classes other than
 * completed whose runs the rule keeps in the denominator; empty when there are none.
 */
export function countedClasses(rule: ExclusionRule, outcomes: ClassOutcomeCounts): string {
  const counted = RUN_CLASSIFICATIONS.flatMap((classification) => {
    const treatment = rule.classes[classification];
    const { success, failure, unresolved } = outcomes[classification];
    const runs = success + failure + unresolved;
    if (classification === "completed" || treatment === "exclude" || runs === 0) return [];
    const how = treatment === "count_as_failure" ? "counted as failures" : "kept with their labels";
    return [`${CLASSIFICATION_LABELS[classification]}: ${runs} (${how})`];
  });
  return counted.length === 0 ? "" : `, counting ${counted.join(", ")}`;
}

export interface NamedRate {
  name: string;
  /** What N counts, in words. */
  population: string;
  n: number;
  N: number;
  wilson95: Interval | null;
}

export function namedRate(name: string, population: string, n: number, N: number): NamedRate {
  return { name, population, n, N, wilson95: wilsonInterval(n, N) };
}

/** Runs by class as outcomes of completion: a completed run succeeds, any other class fails. */
export function completionOutcomes(runsByClass: Record<RunClassification, number>): ClassOutcomeCounts {
  return Object.fromEntries(
    RUN_CLASSIFICATIONS.map((c) => [
      c,
      { success: c === "completed" ? runsByClass[c] : 0, failure: c === "completed" ? 0 : runsByClass[c], unresolved: 0 },
    ]),
  ) as ClassOutcomeCounts;
}

/**
 * Completed runs over every eligible run (every run that entered the protocol), less the classes
 * the declared rule excludes, which are returned by name: a run that failed, stopped at its
 * budget or lacks evidence stays in N.
 */
export function completionRate(
  rule: ExclusionRule,
  runsByClass: Record<RunClassification, number>,
): NamedRate & { excluded: ExcludedRuns[] } {
  const { n, N, excluded } = applyExclusionRule(rule, completionOutcomes(runsByClass));
  // No run here is unresolved, so only classes can be excluded.
  const excludedClasses = excluded.filter((group) => group.name !== "unresolved");
  return {
    ...namedRate(
      "completion rate",
      `eligible runs (${rule.eligiblePopulation ?? DEFAULT_ELIGIBLE_POPULATION})${lessExcluded(rule, excludedClasses)}`,
      n,
      N,
    ),
    excluded: excludedClasses,
  };
}

/** Legal calls over attempted tool calls: a rejected or erroring call counts against it even when the agent later repairs it. */
export function legalActionRate(calls: { attempted: number; legal: number }): NamedRate {
  return namedRate(
    "legal-action rate",
    "attempted tool calls (rejected or erroring ones included, repaired or not)",
    calls.legal,
    calls.attempted,
  );
}

/** The legal-action rate where calls carry their outcome, or why it cannot be computed. */
export type LegalActionFigure = { available: true; rate: NamedRate } | { available: false; reason: string };

/**
 * From the tool calls of every run: `calls` in all, `withOutcome` of them carrying an outcome (ok,
 * rejected or error), `legal` of those ok. Calls without an outcome are not guessed legal: the
 * population is the calls whose outcome is recorded, and says how many are left out.
 */
export function legalActionFigure({ calls, withOutcome, legal }: { calls: number; withOutcome: number; legal: number }): LegalActionFigure {
  if (calls === 0) return { available: false, reason: "no run carries a tool call" };
  if (withOutcome === 0)
    return {
      available: false,
      reason: `none of the ${calls} tool calls carries an outcome (outcome or error in the run's toolCalls), so whether any was rejected or raised is unknown`,
    };
  const rate = legalActionRate({ attempted: withOutcome, legal });
  const left = calls - withOutcome;
  return {
    available: true,
    rate:
      left === 0
        ? rate
        : {
            ...rate,
            population: `${rate.population}, of the calls whose outcome is recorded (${left} of ${calls} carry none and are left out)`,
          },
  };
}

// Declared exclusion rules (docs/statistics.md, Declared exclusion rules): every started run keeps one of the five run classes, and
// the rule says, before the runs, what each class (and the unresolved label) does to a headline
// rate. An excluded class is not dropped: it is reported under its own name with its own
// denominator. The rule is hashed in a thin shell (exclusion-rule-hash.ts): the canonical JSON
// and SHA-256 live with the share links, which this pure module may not import.
import { z } from "zod";
import { int4 } from "../http/storable";
import { RUN_CLASSIFICATIONS, type RunClassification } from "../replay/rules/classification";

/** keep: the run counts with its own label; count_as_failure: it counts, as a failure; exclude: it leaves the denominator, reported apart. */
export const CLASS_TREATMENTS = ["keep", "count_as_failure", "exclude"] as const;
/** What a kept run whose label is unresolved counts as. */
export const UNRESOLVED_TREATMENTS = ["count_as_failure", "count_as_success", "exclude"] as const;
export type ClassTreatment = (typeof CLASS_TREATMENTS)[number];
export type UnresolvedTreatment = (typeof UNRESOLVED_TREATMENTS)[number];

const classTreatment = (name: string) => z.enum(CLASS_TREATMENTS, `${name} must be one of ${CLASS_TREATMENTS.join(", ")}`);

/** What a declaration holds (POST bodies, the rule PUT, the forms): the rule without its version, which the store assigns. */
export const exclusionRuleDeclarationSchema = z.strictObject({
  classes: z.strictObject({
    completed: classTreatment("classes.completed"),
    agent_failure: classTreatment("classes.agent_failure"),
    protocol_stop: classTreatment("classes.protocol_stop"),
    environment_failure: classTreatment("classes.environment_failure"),
    missing_evidence: classTreatment("classes.missing_evidence"),
  } satisfies Record<RunClassification, z.ZodType<ClassTreatment>>),
  unresolved: z.enum(UNRESOLVED_TREATMENTS, `unresolved must be one of ${UNRESOLVED_TREATMENTS.join(", ")}`),
  /** The eligible population in words (declared with the rule, before the runs); absent: every run that entered the protocol. */
  eligiblePopulation: z
    .string("eligiblePopulation must be text")
    .trim()
    .min(1, "eligiblePopulation must not be empty")
    .max(500, "eligiblePopulation must be at most 500 characters")
    .optional(),
  /** A target for the headline rate: a warning appears when an alternative rule puts the rate on the other side of it. */
  threshold: z
    .number("threshold must be a number")
    .min(0, "threshold must be between 0 and 1")
    .max(1, "threshold must be between 0 and 1")
    .optional(),
});
export type ExclusionRuleDeclaration = z.infer<typeof exclusionRuleDeclarationSchema>;

export const exclusionRuleSchema = exclusionRuleDeclarationSchema.extend({
  /** Changing a declared rule makes a new version; every figure names the version it used. */
  version: z.number().int().min(1),
});
export type ExclusionRule = z.infer<typeof exclusionRuleSchema>;

const reason = z
  .string("reason must be text")
  .trim()
  .min(1, "reason must say why the rule changes")
  .max(1_000, "reason must be at most 1000 characters");

/** PUT /api/v1/{experiments,evaluations}/{id}/exclusion-rule: the new rule, the version it was edited from, and why. */
export const changeExclusionRuleBodySchema = z.strictObject({
  baseVersion: int4("baseVersion (the version you edited from)", 1),
  reason,
  rule: exclusionRuleDeclarationSchema,
});
export type ChangeExclusionRuleBody = z.infer<typeof changeExclusionRuleBodySchema>;

/** The population words when the rule declares none. */
export const DEFAULT_ELIGIBLE_POPULATION = "every run that entered the protocol";

/**
 * The rule every experiment uses until rules are declared per experiment (docs/replay.md, Run accounting and environment failures):
 * completed, agent failures and protocol stops stay in the denominator with their labels;
 * environment failures (the service, not the agent, made the run unusable, after the replay's
 * predeclared retries) are excluded and reported apart; missing evidence is kept, so its
 * unresolved label counts; an unresolved label counts as a failure, because a success needs
 * evidence that fixes the outcome (the paper, §3, rule for final labels).
 */
export const DEFAULT_EXPERIMENT_RULE: ExclusionRule = {
  version: 1,
  classes: { completed: "keep", agent_failure: "keep", protocol_stop: "keep", environment_failure: "exclude", missing_evidence: "keep" },
  unresolved: "count_as_failure",
};

/**
 * The rule every ingested evaluation uses until rules are declared per evaluation: the experiments'
 * default (the same hash): an ingested run is `completed` unless its record gives another class (an
 * importer gives `environment_failure` to a task the harness errored on, which is then excluded);
 * an unresolved run counts as a failure.
 */
export const DEFAULT_EVALUATION_RULE: ExclusionRule = DEFAULT_EXPERIMENT_RULE;

/** The declaration of a default rule (what the forms start from). */
export function declarationOf({ version: _version, ...declaration }: ExclusionRule): ExclusionRuleDeclaration {
  return declaration;
}

/** Runs of one class by the label they carry. */
export interface OutcomeCounts {
  success: number;
  failure: number;
  unresolved: number;
}
export type ClassOutcomeCounts = Record<RunClassification, OutcomeCounts>;

const NO_OUTCOMES: OutcomeCounts = { success: 0, failure: 0, unresolved: 0 };

/** Every class with no runs: a base to add counts to. */
export function emptyClassOutcomes(): ClassOutcomeCounts {
  return Object.fromEntries(RUN_CLASSIFICATIONS.map((c) => [c, { ...NO_OUTCOMES }])) as ClassOutcomeCounts;
}

/**
 * An evaluation's runs as class outcomes: `others`, the runs whose record gives a class other than
 * completed (few: read apart, by an index of their own), and the rest of the totals (final successes
 * and failures, and the unresolved) as `completed`.
 */
export function evaluationOutcomes(
  totals: { finalRuns: number; finalSuccesses: number; unresolved: number },
  others: Partial<Record<RunClassification, OutcomeCounts>> = {},
): ClassOutcomeCounts {
  const outcomes = emptyClassOutcomes();
  let successes = totals.finalSuccesses;
  let failures = totals.finalRuns - totals.finalSuccesses;
  let unresolved = totals.unresolved;
  for (const classification of RUN_CLASSIFICATIONS) {
    const counts = others[classification];
    if (classification === "completed" || !counts) continue;
    outcomes[classification] = { ...counts };
    successes -= counts.success;
    failures -= counts.failure;
    unresolved -= counts.unresolved;
  }
  outcomes.completed = { success: successes, failure: failures, unresolved };
  return outcomes;
}

/** A group of runs the rule took out of the denominator: its name, its own n/N (successes among them, by their own labels). */
export interface ExcludedRuns {
  name: RunClassification | "unresolved";
  n: number;
  N: number;
}

export interface RuleOutcome {
  /** Successes after the rule. */
  n: number;
  /** Runs in the denominator after the rule. */
  N: number;
  /** Every group the rule excludes, by name, even when it is empty. */
  excluded: ExcludedRuns[];
}

/** The headline n/N under a rule, and what it excluded. */
export function applyExclusionRule(rule: ExclusionRule, counts: ClassOutcomeCounts): RuleOutcome {
  let n = 0;
  let N = 0;
  const excluded: ExcludedRuns[] = [];
  const unresolvedExcluded: ExcludedRuns = { name: "unresolved", n: 0, N: 0 };
  for (const classification of RUN_CLASSIFICATIONS) {
    const { success, failure, unresolved } = counts[classification];
    const runs = success + failure + unresolved;
    const treatment = rule.classes[classification];
    if (treatment === "exclude") {
      excluded.push({ name: classification, n: success, N: runs });
      continue;
    }
    if (treatment === "count_as_failure") {
      N += runs;
      continue;
    }
    n += success;
    N += success + failure;
    if (rule.unresolved === "exclude") unresolvedExcluded.N += unresolved;
    else {
      N += unresolved;
      if (rule.unresolved === "count_as_success") n += unresolved;
    }
  }
  if (rule.unresolved === "exclude") excluded.push(unresolvedExcluded);
  return { n, N, excluded };
}

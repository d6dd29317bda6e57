// Sensitivity (docs/statistics.md, Sensitivity and verdicts: "show sensitivity when a reasonable alternative exclusion rule changes the
// conclusion"; the paper, §3: a bound supports a conclusion only when every value in the justified
// range leads to the same result). A headline rate under the declared rule and every reasonable
// alternative, and a verdict on whether a conclusion survives them.
import {
  applyExclusionRule,
  type ClassOutcomeCounts,
  type ClassTreatment,
  type ExclusionRule,
  type ExcludedRuns,
  type UnresolvedTreatment,
} from "./exclusion-rule";
import { wilsonInterval, type Interval } from "./wilson";

export interface SensitivityRow {
  /** "declared (version V)", or the alternative's treatments in words. */
  rule: string;
  n: number;
  N: number;
  /** n/N, or null when N = 0. */
  rate: number | null;
  wilson95: Interval | null;
  excluded: ExcludedRuns[];
}

export const UNRESOLVED_WORDS: Record<UnresolvedTreatment, string> = {
  count_as_failure: "unresolved as failure",
  count_as_success: "unresolved as success",
  exclude: "unresolved excluded",
};
const ENVIRONMENT_WORDS: Record<ClassTreatment, string> = {
  keep: "environment failures kept",
  count_as_failure: "environment failures as failure",
  exclude: "environment failures excluded",
};

/**
 * The declared rule first, then every combination of the unresolved label as failure, as success
 * or excluded with environment failures kept or excluded, the other classes as declared (the
 * combination equal to the declared rule is not repeated). With `varyEnvironment` false (no run is an
 * environment failure, as in an ingested evaluation whose records give no class) environment failures
 * stay as declared: rows differing only there would repeat each other.
 */
function sensitivityRules(declared: ExclusionRule, varyEnvironment: boolean): Array<{ rule: string; exclusionRule: ExclusionRule }> {
  const environments: readonly ClassTreatment[] = varyEnvironment ? ["keep", "exclude"] : [declared.classes.environment_failure];
  const alternatives = (["count_as_failure", "count_as_success", "exclude"] as const).flatMap((unresolved) =>
    environments
      .filter((environment) => unresolved !== declared.unresolved || environment !== declared.classes.environment_failure)
      .map((environment) => ({
        rule: varyEnvironment ? `${UNRESOLVED_WORDS[unresolved]}, ${ENVIRONMENT_WORDS[environment]}` : UNRESOLVED_WORDS[unresolved],
        exclusionRule: { ...declared, classes: { ...declared.classes, environment_failure: environment }, unresolved },
      })),
  );
  return [{ rule: `declared (version ${declared.version})`, exclusionRule: declared }, ...alternatives];
}

/** The headline n/N, rate and interval under the declared rule and each alternative (`varyEnvironment`: see sensitivityRules). */
export function sensitivity(
  declared: ExclusionRule,
  counts: ClassOutcomeCounts,
  { varyEnvironment = true }: { varyEnvironment?: boolean } = {},
): SensitivityRow[] {
  return sensitivityRules(declared, varyEnvironment).map(({ rule, exclusionRule }) => {
    const { n, N, excluded } = applyExclusionRule(exclusionRule, counts);
    return { rule, n, N, rate: N === 0 ? null : n / N, wilson95: wilsonInterval(n, N), excluded };
  });
}

export const VERDICTS = ["holds across the justified range", "flips within it", "not separable at this sample size"] as const;
export type Verdict = (typeof VERDICTS)[number];

const overlap = (a: Interval, b: Interval): boolean => a[0] <= b[1] && b[0] <= a[1];

/**
 * Whether "A's rate differs from B's" survives the rules (rows of the same rules, in the same order):
 * - "flips within it": the sign of rate A − rate B (a tie counting as its own sign) is not the
 *   same under every rule;
 * - "holds across the justified range": the sign is the same nonzero one under every rule, and
 *   under every rule the two Wilson intervals are disjoint;
 * - "not separable at this sample size": otherwise: the sign never changes, but under at least
 *   one rule the intervals overlap (or a side has no runs), so the sample cannot tell the two
 *   rates apart there.
 */
export function comparisonVerdict(a: readonly SensitivityRow[], b: readonly SensitivityRow[]): Verdict {
  if (a.length !== b.length || a.length === 0 || a.some((row, i) => row.rule !== b[i]!.rule))
    throw new Error("comparisonVerdict: the same rules, in the same order, on both sides");
  const pairs = a.map((row, i) => [row, b[i]!] as const);
  if (pairs.some(([x, y]) => x.rate === null || y.rate === null)) return "not separable at this sample size";
  const signs = new Set(pairs.map(([x, y]) => Math.sign(x.rate! - y.rate!)));
  if (signs.size > 1) return "flips within it";
  if (signs.has(0)) return "not separable at this sample size";
  return pairs.every(([x, y]) => !overlap(x.wilson95!, y.wilson95!))
    ? "holds across the justified range"
    : "not separable at this sample size";
}

/**
 * Whether "the rate is at least `threshold`" (or "is below it") survives the rules:
 * - "flips within it": the rate is at or above the threshold under some rule and below it under another;
 * - "holds across the justified range": under every rule the whole Wilson interval is on that same side
 *   (lower bound ≥ threshold, or upper bound < threshold);
 * - "not separable at this sample size": otherwise: the side never changes, but under some rule the
 *   interval contains the threshold (or there are no runs).
 */
export function thresholdVerdict(rows: ReadonlyArray<Omit<SensitivityRow, "excluded">>, threshold: number): Verdict {
  if (rows.length === 0) throw new Error("thresholdVerdict: no rules");
  if (rows.some((row) => row.rate === null)) return "not separable at this sample size";
  const sides = new Set(rows.map((row) => row.rate! >= threshold));
  if (sides.size > 1) return "flips within it";
  const atOrAbove = sides.has(true);
  return rows.every((row) => (atOrAbove ? row.wilson95![0] >= threshold : row.wilson95![1] < threshold))
    ? "holds across the justified range"
    : "not separable at this sample size";
}

/** A target the user declared for a measure, judged under every rule of its sensitivity rows. */
export interface ThresholdCheck {
  measure: string;
  threshold: number;
  verdict: Verdict;
  /** Set when the conclusion changes between rules: the rate is on one side of the target under one rule and on the other under another. */
  warning: string | null;
}

const percent = (value: number) => `${(100 * value).toFixed(1)}%`;

/** Whether `measure`'s rate is at least `threshold`, under each rule of `rows` (the declared first), with a warning when the answer changes between them. */
export function thresholdCheck(measure: string, rows: ReadonlyArray<Omit<SensitivityRow, "excluded">>, threshold: number): ThresholdCheck {
  const verdict = thresholdVerdict(rows, threshold);
  if (verdict !== "flips within it") return { measure, threshold, verdict, warning: null };
  const above = rows.find((row) => row.rate! >= threshold)!;
  const below = rows.find((row) => row.rate! < threshold)!;
  return {
    measure,
    threshold,
    verdict,
    warning: `${measure}: at or above the target ${percent(threshold)} under ${above.rule} (${above.n}/${above.N}), below it under ${below.rule} (${below.n}/${below.N}); the conclusion depends on the exclusion rule`,
  };
}

/** One check per measure of a sensitivity table (rows grouped by `measure`, in order); none without a declared threshold. */
export function thresholdChecks(
  threshold: number | undefined,
  rows: ReadonlyArray<Omit<SensitivityRow, "excluded"> & { measure: string }>,
): ThresholdCheck[] {
  if (threshold === undefined) return [];
  const measures = [...new Set(rows.map((row) => row.measure))];
  return measures.map((measure) =>
    thresholdCheck(
      measure,
      rows.filter((row) => row.measure === measure),
      threshold,
    ),
  );
}

import { describe, expect, it } from "vitest";
import { DEFAULT_EXPERIMENT_RULE } from "./exclusion-rule";
import { COUNTS } from "../testing/statistics-counts";
import { comparisonVerdict, sensitivity, thresholdChecks, thresholdVerdict, type SensitivityRow } from "./sensitivity";
import { wilsonInterval } from "./wilson";

describe("sensitivity", () => {
  it("gives the declared rule, then every alternative once", () => {
    const rows = sensitivity(DEFAULT_EXPERIMENT_RULE, COUNTS);
    // Hand-computed from COUNTS (test-support.ts): 19 unresolved (10 completed, 3 stops, 4 environment, 2 missing)
    expect(rows.map((r) => [r.rule, r.n, r.N])).toEqual([
      ["declared (version 1)", 40, 95], // environment excluded (5), unresolved as failure
      ["unresolved as failure, environment failures kept", 41, 100], // + 1 ✓ and 4 ? of environment
      ["unresolved as success, environment failures kept", 60, 100], // 41 + 19 unresolved
      ["unresolved as success, environment failures excluded", 55, 95], // 40 + 15 unresolved of kept classes
      ["unresolved excluded, environment failures kept", 41, 81], // 100 − 19
      ["unresolved excluded, environment failures excluded", 40, 80], // 95 − 15
    ]);
    expect(rows[0]!.rate).toBe(40 / 95);
    expect(rows[0]!.wilson95).toEqual(wilsonInterval(40, 95));
    expect(rows[0]!.excluded).toEqual([{ name: "environment_failure", n: 1, N: 5 }]);
  });
});

const row = (rule: string, n: number, N: number): SensitivityRow => ({
  rule,
  n,
  N,
  rate: N === 0 ? null : n / N,
  wilson95: wilsonInterval(n, N),
  excluded: [],
});
const rows = (...figures: Array<[number, number]>) => figures.map(([n, N], i) => row(`rule ${i}`, n, N));

describe("a threshold the user set", () => {
  const figures = sensitivity(DEFAULT_EXPERIMENT_RULE, COUNTS);
  it("flips when the rate crosses it between rules", () => {
    // 40/95 = 0.421 < 0.5 but 60/100 = 0.6 ≥ 0.5
    expect(thresholdVerdict(figures, 0.5)).toBe("flips within it");
  });
  it("holds when every interval is on the same side", () => {
    // lowest lower bound: Wilson(41, 100) = 0.318673 (centre 0.413329 − half 0.094656) ≥ 0.3
    expect(thresholdVerdict(figures, 0.3)).toBe("holds across the justified range");
    // highest upper bound: Wilson(60, 100) upper = 0.690599 < 0.7
    expect(thresholdVerdict(figures, 0.7)).toBe("holds across the justified range");
  });
  it("is not separable when an interval contains it though no rate crosses it", () => {
    // every rate ≥ 0.35 (lowest 0.41), but Wilson(40, 95) lower = 0.326738 < 0.35
    expect(thresholdVerdict(figures, 0.35)).toBe("not separable at this sample size");
    expect(thresholdVerdict(rows([0, 0]), 0.5)).toBe("not separable at this sample size");
  });
});

describe("a comparison between two rates", () => {
  it("holds when the sign never changes and the intervals never meet", () => {
    // Wilson(85, 100) lower 0.767 > Wilson(20, 100) upper 0.289
    expect(comparisonVerdict(rows([90, 100], [85, 100]), rows([10, 100], [20, 100]))).toBe("holds across the justified range");
  });
  it("flips when the sign changes between rules", () => {
    // 0.50 − 0.55 < 0 under rule 0, 0.60 − 0.55 > 0 under rule 1
    expect(comparisonVerdict(rows([50, 100], [60, 100]), rows([55, 100], [55, 100]))).toBe("flips within it");
    // a tie under one rule is a change of sign too
    expect(comparisonVerdict(rows([50, 100], [60, 100]), rows([50, 100], [55, 100]))).toBe("flips within it");
  });
  it("is not separable when the sign holds but the intervals overlap under some rule", () => {
    // 52/100 vs 50/100 and 90/100 vs 10/100: same sign, but Wilson(52,100) and Wilson(50,100) overlap
    expect(comparisonVerdict(rows([52, 100], [90, 100]), rows([50, 100], [10, 100]))).toBe("not separable at this sample size");
    expect(comparisonVerdict(rows([50, 100]), rows([50, 100]))).toBe("not separable at this sample size");
    expect(comparisonVerdict(rows([5, 10]), rows([0, 0]))).toBe("not separable at this sample size");
  });
  it("compares the same rules only", () => {
    expect(() => comparisonVerdict(rows([1, 2]), [row("other", 1, 2)])).toThrow();
  });
});

describe("sensitivity over runs without classes", () => {
  it("varies only the unresolved treatment", () => {
    // completed 40 ✓ 30 ✗ 10 ?: as failure 40/80, as success 50/80, excluded 40/70.
    const counts = {
      ...COUNTS,
      agent_failure: { success: 0, failure: 0, unresolved: 0 },
      protocol_stop: { success: 0, failure: 0, unresolved: 0 },
      environment_failure: { success: 0, failure: 0, unresolved: 0 },
      missing_evidence: { success: 0, failure: 0, unresolved: 0 },
    };
    expect(sensitivity(DEFAULT_EXPERIMENT_RULE, counts, { varyEnvironment: false }).map((r) => [r.rule, r.n, r.N])).toEqual([
      ["declared (version 1)", 40, 80],
      ["unresolved as success", 50, 80],
      ["unresolved excluded", 40, 70],
    ]);
  });
});

describe("a declared threshold", () => {
  it("warns when the rate crosses it between rules, per measure, and stays silent otherwise", () => {
    const rows = sensitivity(DEFAULT_EXPERIMENT_RULE, COUNTS).map((row) => ({ measure: "completion rate", ...row }));
    // Rates: 40/95 = 42.1 %, 41/100, 60/100, 55/95 = 57.9 %, 41/81 = 50.6 %, 40/80 = 50 %. A 50 % target: below under the
    // declared rule, at or above it with unresolved as success: the first row of each side is named.
    expect(thresholdChecks(0.5, rows)).toEqual([
      {
        measure: "completion rate",
        threshold: 0.5,
        verdict: "flips within it",
        warning:
          "completion rate: at or above the target 50.0% under unresolved as success, environment failures kept (60/100), below it under declared (version 1) (40/95); the conclusion depends on the exclusion rule",
      },
    ]);
    // 30 %: every rate above it, and every Wilson lower bound too (the lowest, of 41/100, is 0.3187): it holds, no warning.
    expect(wilsonInterval(41, 100)![0]).toBeCloseTo(0.3187, 4);
    expect(thresholdChecks(0.3, rows)).toEqual([
      { measure: "completion rate", threshold: 0.3, verdict: "holds across the justified range", warning: null },
    ]);
    expect(thresholdChecks(undefined, rows)).toEqual([]);
    // Two measures, one check each.
    expect(thresholdChecks(0.3, [...rows, { ...rows[0]!, measure: "other" }]).map((c) => c.measure)).toEqual(["completion rate", "other"]);
  });
});

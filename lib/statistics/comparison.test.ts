import { describe, expect, it } from "vitest";
import { compareEvaluations, type ComparisonInput } from "./comparison";
import { DEFAULT_EVALUATION_RULE } from "./exclusion-rule";
import { wilsonInterval } from "./wilson";

const RULE = { version: 1, hash: "a".repeat(64) };
const input = (
  id: string,
  runs: number,
  reportedSuccesses: number,
  finalRuns: number,
  finalSuccesses: number,
  declaredRule = RULE,
): ComparisonInput => ({
  id,
  name: id,
  runs,
  reportedSuccesses,
  finalRuns,
  finalSuccesses,
  unresolved: runs - finalRuns,
  declaredRule,
});

// A: 100 runs, 20 unresolved (18 of them reported successes), 60 of 80 final runs succeeded.
// B: 100 runs, all final, 70 successes. C: 100 runs, all final, 76 successes.
const A = input("A", 100, 78, 80, 60);
const B = input("B", 100, 70, 100, 70);
const C = input("C", 100, 76, 100, 76);

describe("compareEvaluations", () => {
  const comparison = compareEvaluations([A, B, C], DEFAULT_EVALUATION_RULE, RULE);
  const [a, b, c] = comparison.evaluations;

  it("gives each one's reported and final-only rate, the rate under the rule and the justified range", () => {
    expect(a!.reported).toEqual({ n: 78, N: 100, rate: 0.78, wilson95: wilsonInterval(78, 100) });
    expect(a!.finalOnly).toEqual({ n: 60, N: 80, rate: 0.75, wilson95: wilsonInterval(60, 80) });
    // Rule version 1 counts an unresolved run as a failure: 60/100.
    expect(a!.underRule).toMatchObject({ n: 60, N: 100 });
    // Unresolved as failures 60/100, as successes 80/100; interval Wilson(60,100) lower 0.50200 to Wilson(80,100) upper 0.86663.
    expect(a!.justifiedRange.lower).toMatchObject({ n: 60, N: 100, rate: 0.6 });
    expect(a!.justifiedRange.upper).toMatchObject({ n: 80, N: 100, rate: 0.8 });
    expect(a!.justifiedRange.wilson95![0]).toBeCloseTo(0.502, 3);
    expect(a!.justifiedRange.wilson95![1]).toBeCloseTo(0.86663, 4);
    expect(b!.justifiedRange.lower.rate).toBe(0.7);
    expect(b!.justifiedRange.upper.rate).toBe(0.7);
  });

  it("ranks under endpoint and under final-only scoring, and says the order changed", () => {
    // Endpoint: A 0.78 > C 0.76 > B 0.70; final-only: C 0.76 > A 0.75 > B 0.70.
    expect(comparison.ranking).toEqual({ endpoint: ["A", "C", "B"], finalOnly: ["C", "A", "B"], changed: true });
    expect([a!.rank, b!.rank, c!.rank]).toEqual([
      { endpoint: 1, finalOnly: 2 },
      { endpoint: 3, finalOnly: 3 },
      { endpoint: 2, finalOnly: 1 },
    ]);
  });

  it("flips within the justified range when the ranges overlap", () => {
    const [ab, ac, bc] = comparison.pairs;
    // A's range [0.60, 0.80] contains B's 0.70: A can end below or above B.
    expect(ab).toMatchObject({ a: "A", b: "B", verdict: "flips within it", leader: null, leaderEndpoint: "A", leaderFinalOnly: "A" });
    // A's range contains C's 0.76; A leads at the endpoint, C on final runs.
    expect(ac).toMatchObject({ verdict: "flips within it", leader: null, leaderEndpoint: "A", leaderFinalOnly: "C" });
    // C 0.76 > B 0.70 with nothing unresolved, but Wilson(76,100) = [0.66768, 0.83309] overlaps Wilson(70,100) = [0.60415, 0.78105].
    expect(bc).toMatchObject({ a: "B", b: "C", verdict: "not separable at this sample size", leader: "C" });
  });

  it("holds when the lower end's interval clears the other's upper end's", () => {
    // D 180/200 = 0.90, all final; E 100/190 final successes + 10 unresolved: range [0.50, 0.55].
    // Wilson(180,200) lower 0.85059 > Wilson(110,200) upper 0.61736.
    const { pairs } = compareEvaluations([input("E", 200, 110, 190, 100), input("D", 200, 180, 200, 180)], DEFAULT_EVALUATION_RULE, RULE);
    expect(pairs).toEqual([
      expect.objectContaining({
        a: "E",
        b: "D",
        verdict: "holds across the justified range",
        leader: "D",
        leaderEndpoint: "D",
        leaderFinalOnly: "D",
      }),
    ]);
  });

  it("touching ranges flip (a tie is a different result); equal points and empty sides are not separable", () => {
    // F [0.60, 0.70] touches G's 0.70: F can tie G or fall behind.
    const touching = compareEvaluations([input("F", 100, 70, 90, 60), input("G", 100, 70, 100, 70)], DEFAULT_EVALUATION_RULE, RULE);
    expect(touching.pairs[0]!.verdict).toBe("flips within it");
    const equal = compareEvaluations([input("H", 50, 25, 50, 25), input("I", 100, 50, 100, 50)], DEFAULT_EVALUATION_RULE, RULE);
    expect(equal.pairs[0]).toMatchObject({ verdict: "not separable at this sample size", leader: null });
    expect(equal.ranking).toEqual({ endpoint: ["H", "I"], finalOnly: ["H", "I"], changed: false });
    const empty = compareEvaluations([input("J", 0, 0, 0, 0), input("K", 10, 5, 10, 5)], DEFAULT_EVALUATION_RULE, RULE);
    expect(empty.pairs[0]).toMatchObject({ verdict: "not separable at this sample size", leader: null });
    expect(empty.evaluations[0]!.rank).toEqual({ endpoint: null, finalOnly: null });
    expect(empty.ranking.endpoint).toEqual(["K", "J"]);
  });

  it("applies one rule to every evaluation and says so when their declared rules differ", () => {
    expect(comparison).toMatchObject({ rulesDiffer: false, ruleNote: expect.stringContaining("Every evaluation declared rule version 1") });
    const other = { version: 2, hash: "b".repeat(64) };
    const differing = compareEvaluations([A, input("B", 100, 70, 100, 70, other)], DEFAULT_EVALUATION_RULE, RULE);
    expect(differing.rulesDiffer).toBe(true);
    expect(differing.ruleNote).toBe(
      "Their declared rules differ (A: version 1, aaaaaaaaaaaa…; B: version 2, bbbbbbbbbbbb…); this comparison applies rule version 1 (aaaaaaaaaaaa…) to every one.",
    );
    // Excluding unresolved runs: A's headline becomes its final-only 60/80; the justified range does not move.
    const excluding = compareEvaluations([A, B], { ...DEFAULT_EVALUATION_RULE, unresolved: "exclude" }, RULE);
    expect(excluding.evaluations[0]!.underRule).toMatchObject({ n: 60, N: 80 });
    expect(excluding.evaluations[0]!.justifiedRange.upper).toMatchObject({ n: 80, N: 100 });
    expect(() => compareEvaluations([A], DEFAULT_EVALUATION_RULE, RULE)).toThrow(/two or more/);
  });
});

describe("the comparison's sensitivity to the rule", () => {
  it("ranks under the applied rule and each alternative, and warns for each pair whose leader changes", () => {
    // Under the default rule (unresolved as failure): A 60/100, B 70/100, C 76/100 → C, B, A.
    // Unresolved as success: A 80/100 → A, C, B. Unresolved excluded: A 60/80 = 75 % → C, A, B.
    const { ruleSensitivity, ruleWarnings } = compareEvaluations([A, B, C], DEFAULT_EVALUATION_RULE, RULE);
    expect(ruleSensitivity).toEqual([
      { rule: "applied (version 1): unresolved as failure", ranking: ["C", "B", "A"] },
      { rule: "unresolved as success", ranking: ["A", "C", "B"] },
      { rule: "unresolved excluded", ranking: ["C", "A", "B"] },
    ]);
    // A vs B flips (B ahead, then A); A vs C flips (C, then A); B vs C holds (C under every rule).
    expect(ruleWarnings).toEqual([
      "A vs B: B leads under applied (version 1): unresolved as failure (A 60/100, B 70/100), A under unresolved as success (A 80/100, B 70/100); the order depends on the exclusion rule",
      "A vs C: C leads under applied (version 1): unresolved as failure (A 60/100, C 76/100), A under unresolved as success (A 80/100, C 76/100); the order depends on the exclusion rule",
    ]);
    // Nothing unresolved anywhere: one order under every rule, no warning.
    expect(compareEvaluations([B, C], DEFAULT_EVALUATION_RULE, RULE).ruleWarnings).toEqual([]);
  });

  it("warns when the leader changes even when the two evaluations share a name (names are not unique)", () => {
    // Both "gpt-4o": X 5 final successes of 10 final runs + 10 unresolved; Y 12/20, all final.
    // Unresolved as failure: X 5/20 < Y 12/20; as success: X 15/20 > Y 12/20; excluded: X 5/10 < Y 12/20.
    const x = { ...input("X", 20, 15, 10, 5), name: "gpt-4o" };
    const y = { ...input("Y", 20, 12, 20, 12), name: "gpt-4o" };
    const { ruleWarnings } = compareEvaluations([x, y], DEFAULT_EVALUATION_RULE, RULE);
    expect(ruleWarnings).toHaveLength(1);
    expect(ruleWarnings[0]).toContain("the order depends on the exclusion rule");
  });

  it("names whose declared rule it applies when their rules differ", () => {
    const other = { version: 2, hash: "b".repeat(64) };
    expect(compareEvaluations([A, { ...B, declaredRule: other }], DEFAULT_EVALUATION_RULE, RULE, "A").ruleNote).toBe(
      `Their declared rules differ (A: version 1, ${"a".repeat(12)}…; B: version 2, ${"b".repeat(12)}…); this comparison applies A's rule version 1 (${"a".repeat(12)}…) to every one.`,
    );
    expect(compareEvaluations([A, B], DEFAULT_EVALUATION_RULE, RULE, "A").ruleNote).toBe(
      `Every evaluation declared rule version 1 (${"a".repeat(12)}…); it applies to every one.`,
    );
  });
});

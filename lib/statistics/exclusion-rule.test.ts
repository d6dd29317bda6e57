import { describe, expect, it } from "vitest";
import { applyExclusionRule, DEFAULT_EXPERIMENT_RULE, exclusionRuleSchema, type ExclusionRule } from "./exclusion-rule";
import { exclusionRuleIdentity } from "./exclusion-rule-hash";
import { COUNTS } from "../testing/statistics-counts";

const withRule = (changes: Partial<Omit<ExclusionRule, "classes">> & { classes?: Partial<ExclusionRule["classes"]> }): ExclusionRule => ({
  ...DEFAULT_EXPERIMENT_RULE,
  ...changes,
  classes: { ...DEFAULT_EXPERIMENT_RULE.classes, ...changes.classes },
});

describe("applying an exclusion rule", () => {
  it("under the default rule excludes environment failures by name and counts unresolved as failure", () => {
    // kept: completed 80 (40 ✓), agent 8, stops 5, missing 2 → 40/95; environment failures apart: 1 of 5
    expect(applyExclusionRule(DEFAULT_EXPERIMENT_RULE, COUNTS)).toEqual({
      n: 40,
      N: 95,
      excluded: [{ name: "environment_failure", n: 1, N: 5 }],
    });
  });

  it("keeps a class with its own labels", () => {
    // environment failures kept: 1 ✓ and 4 ? (as failure) join: 41/100, nothing excluded
    expect(applyExclusionRule(withRule({ classes: { environment_failure: "keep" } }), COUNTS)).toEqual({ n: 41, N: 100, excluded: [] });
  });

  it("counts a class as failure whatever its labels", () => {
    // environment failures as failure: 40/95 + 0/5 = 40/100
    expect(applyExclusionRule(withRule({ classes: { environment_failure: "count_as_failure" } }), COUNTS)).toEqual({
      n: 40,
      N: 100,
      excluded: [],
    });
    // completed as failure too: its 40 successes no longer count: 0/100
    expect(
      applyExclusionRule(withRule({ classes: { environment_failure: "count_as_failure", completed: "count_as_failure" } }), COUNTS),
    ).toEqual({ n: 0, N: 100, excluded: [] });
  });

  it("treats the unresolved label of kept classes as failure, success, or its own excluded group", () => {
    // as success: 40 + 10 (completed) + 3 (stops) + 2 (missing) = 55 of 95
    expect(applyExclusionRule(withRule({ unresolved: "count_as_success" }), COUNTS)).toEqual({
      n: 55,
      N: 95,
      excluded: [{ name: "environment_failure", n: 1, N: 5 }],
    });
    // excluded: 95 − 15 unresolved = 80, 40 successes; the unresolved of excluded environment failures stay with their class
    expect(applyExclusionRule(withRule({ unresolved: "exclude" }), COUNTS)).toEqual({
      n: 40,
      N: 80,
      excluded: [
        { name: "environment_failure", n: 1, N: 5 },
        { name: "unresolved", n: 0, N: 15 },
      ],
    });
  });

  it("excludes any class, completed included, when declared so", () => {
    // everything but agent failures excluded: 0/8
    const rule = withRule({ classes: { completed: "exclude", protocol_stop: "exclude", missing_evidence: "exclude" } });
    expect(applyExclusionRule(rule, COUNTS).N).toBe(8);
    expect(applyExclusionRule(rule, COUNTS).excluded.map((e) => `${e.name} ${e.n}/${e.N}`)).toEqual([
      "completed 40/80",
      "protocol_stop 0/5",
      "environment_failure 1/5",
      "missing_evidence 0/2",
    ]);
  });
});

describe("a declared rule", () => {
  it("is validated at the boundary", () => {
    expect(exclusionRuleSchema.parse(DEFAULT_EXPERIMENT_RULE)).toEqual(DEFAULT_EXPERIMENT_RULE);
    expect(exclusionRuleSchema.safeParse({ ...DEFAULT_EXPERIMENT_RULE, unresolved: "keep" }).success).toBe(false);
    expect(
      exclusionRuleSchema.safeParse({ ...DEFAULT_EXPERIMENT_RULE, classes: { ...DEFAULT_EXPERIMENT_RULE.classes, timeout: "keep" } })
        .success,
    ).toBe(false);
    expect(exclusionRuleSchema.safeParse({ ...DEFAULT_EXPERIMENT_RULE, version: 0 }).success).toBe(false);
  });

  it("has one canonical JSON and SHA-256, whatever its key order", () => {
    const identity = exclusionRuleIdentity(DEFAULT_EXPERIMENT_RULE);
    expect(identity.canonical).toBe(
      '{"classes":{"agent_failure":"keep","completed":"keep","environment_failure":"exclude","missing_evidence":"keep","protocol_stop":"keep"},"unresolved":"count_as_failure","version":1}',
    );
    // printf '%s' "$canonical" | sha256sum
    expect(identity.hash).toBe("3beb10a452d0d8fc2218302a788c833633e5c1f7c4df9d32c1cd82668eb95509");
    expect(identity.version).toBe(1);
    const reordered = { unresolved: "count_as_failure", classes: { ...DEFAULT_EXPERIMENT_RULE.classes }, version: 1 } as const;
    expect(exclusionRuleIdentity(reordered).hash).toBe(identity.hash);
    expect(exclusionRuleIdentity(withRule({ version: 2 })).hash).not.toBe(identity.hash);
  });
});

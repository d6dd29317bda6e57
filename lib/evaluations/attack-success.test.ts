import { describe, expect, it } from "vitest";
import { attackSucceeded, labelOutcomeFigures } from "./attack-success";

describe("attackSucceeded", () => {
  it("reads the security label as the attack's outcome, and nothing else", () => {
    expect(attackSucceeded({ security: "success" })).toBe(true);
    expect(attackSucceeded({ security: "failure", other: "success" })).toBe(false);
    expect(attackSucceeded({ other: "success" })).toBeUndefined();
    expect(attackSucceeded(null)).toBeUndefined();
    expect(attackSucceeded(["security"])).toBeUndefined();
  });
});

describe("labelOutcomeFigures", () => {
  it("sums the unresolved runs over their reasons", () => {
    const figures = labelOutcomeFigures({
      runs: 7,
      succeeded: 4,
      final: 3,
      finalSucceeded: 1,
      unresolvedByReason: [
        { reason: "pending_at_scoring", n: 3 },
        { reason: "unclassified_tool", n: 1 },
      ],
    });
    expect(figures).toEqual({
      reported: { successes: 4, n: 7 },
      final: { successes: 1, n: 3 },
      unresolved: { n: 4, byReason: { pending_at_scoring: 3, unclassified_tool: 1 } },
    });
  });
});

import { describe, expect, it } from "vitest";
import { DEFAULT_EXPERIMENT_RULE } from "./exclusion-rule";
import { completionRate, legalActionFigure, legalActionRate, lessExcluded, namedRate } from "./named-rate";

describe("named rates", () => {
  it("carry their population, n/N and interval", () => {
    // 0/150: upper = z²/(150 + z²) = 0.024970
    const snapshot = namedRate("success rate: snapshot", "finality trials at nonzero delay", 0, 150);
    expect(snapshot).toMatchObject({ n: 0, N: 150, wilson95: [0, expect.closeTo(0.02497, 5)] });
    expect(namedRate("x", "nothing", 0, 0).wilson95).toBeNull();
  });

  it("count completion over every eligible run, less the declared exclusions", () => {
    // 100 runs: completed 80, agent failures 8, stops 5, environment failures 5, missing evidence 2;
    // environment failures excluded: 80/95, Wilson centre (0.842105 + 0.020218)/1.040436 = 0.828809, half 0.073106
    const rate = completionRate(DEFAULT_EXPERIMENT_RULE, {
      completed: 80,
      agent_failure: 8,
      protocol_stop: 5,
      environment_failure: 5,
      missing_evidence: 2,
    });
    expect(rate).toMatchObject({ name: "completion rate", n: 80, N: 95, excluded: [{ name: "environment_failure", n: 0, N: 5 }] });
    expect(rate.population).toBe(
      "eligible runs (every run that entered the protocol), less what rule version 1 excludes (environment failure: 5)",
    );
    expect(rate.wilson95![0]).toBeCloseTo(0.755704, 6);
    expect(rate.wilson95![1]).toBeCloseTo(0.901915, 6);
  });

  it("count legal actions over attempted calls, repaired rejections included", () => {
    // 9/12: centre (0.75 + 0.160061)/1.320122 = 0.689377, half 0.221682 → [0.467695, 0.911058]
    const rate = legalActionRate({ attempted: 12, legal: 9 });
    expect(rate).toMatchObject({ name: "legal-action rate", n: 9, N: 12 });
    expect(rate.wilson95![0]).toBeCloseTo(0.467695, 6);
    expect(rate.wilson95![1]).toBeCloseTo(0.911058, 6);
  });

  it("say what the rule took out of a population, by name and count", () => {
    expect(lessExcluded(DEFAULT_EXPERIMENT_RULE, [])).toBe("");
    expect(
      lessExcluded(DEFAULT_EXPERIMENT_RULE, [
        { name: "environment_failure", n: 1, N: 5 },
        { name: "unresolved", n: 0, N: 15 },
      ]),
    ).toBe(", less what rule version 1 excludes (environment failure: 5, unresolved: 15)");
  });
});

describe("the legal-action figure", () => {
  it("is the rate over the calls whose outcome is recorded, naming those left out, or says why there is none", () => {
    // 9 legal of 12 with an outcome, 3 more without: 9/12 over the 12, the 3 named.
    const figure = legalActionFigure({ calls: 15, withOutcome: 12, legal: 9 });
    expect(figure).toMatchObject({
      available: true,
      rate: { name: "legal-action rate", n: 9, N: 12, population: expect.stringContaining("(3 of 15 carry none and are left out)") },
    });
    expect(legalActionFigure({ calls: 12, withOutcome: 12, legal: 9 })).toEqual({
      available: true,
      rate: legalActionRate({ attempted: 12, legal: 9 }),
    });
    expect(legalActionFigure({ calls: 4, withOutcome: 0, legal: 0 })).toEqual({
      available: false,
      reason: expect.stringContaining("none of the 4 tool calls carries an outcome"),
    });
    expect(legalActionFigure({ calls: 0, withOutcome: 0, legal: 0 })).toEqual({ available: false, reason: "no run carries a tool call" });
  });
});

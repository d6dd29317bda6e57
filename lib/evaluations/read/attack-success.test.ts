import { describe, expect, it } from "vitest";
import { wilsonInterval } from "../../statistics/wilson";
import {
  attackSucceeded,
  labelOutcomeFigures,
  labelRates,
  NO_PIPELINE,
  outcomeFigures,
  pipelineTradeOffs,
  withoutAttack,
  type PipelineCountsRow,
} from "./attack-success";

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

describe("outcomeFigures", () => {
  it("gives reported over every scored run, final-only over the final ones, and the justified range with unresolved runs as failures then successes", () => {
    // 10 runs: 6 final (2 succeeded), 4 unresolved; 5 reported successes.
    const figures = outcomeFigures({ runs: 10, successes: 5, final: 6, finalSuccesses: 2, unresolved: 4 });
    expect(figures.reported).toEqual({ n: 5, N: 10, rate: 0.5, wilson95: wilsonInterval(5, 10) });
    expect(figures.finalOnly).toEqual({ n: 2, N: 6, rate: 2 / 6, wilson95: wilsonInterval(2, 6) });
    expect(figures.unresolved).toBe(4);
    expect(figures.justifiedRange.lower).toEqual({ n: 2, N: 10, rate: 0.2, wilson95: wilsonInterval(2, 10) });
    expect(figures.justifiedRange.upper).toEqual({ n: 6, N: 10, rate: 0.6, wilson95: wilsonInterval(6, 10) });
    expect(figures.justifiedRange.wilson95).toEqual([wilsonInterval(2, 10)![0], wilsonInterval(6, 10)![1]]);
  });

  it("has no rate and no interval over no runs", () => {
    const figures = outcomeFigures({ runs: 0, successes: 0, final: 0, finalSuccesses: 0, unresolved: 0 });
    expect(figures.reported).toEqual({ n: 0, N: 0, rate: null, wilson95: null });
    expect(figures.justifiedRange.wilson95).toBeNull();
  });

  it("collapses the justified range to the final-only figure's numerator when nothing is unresolved", () => {
    const figures = outcomeFigures({ runs: 4, successes: 3, final: 4, finalSuccesses: 3, unresolved: 0 });
    expect(figures.justifiedRange.lower).toEqual(figures.justifiedRange.upper);
    expect(figures.justifiedRange.lower).toEqual(figures.finalOnly);
  });
});

describe("pipelineTradeOffs", () => {
  const row = (pipeline: string | null, attacked: boolean, counts: Partial<PipelineCountsRow> = {}): PipelineCountsRow => ({
    pipeline,
    attacked,
    runs: 4,
    final: 3,
    unresolved: 1,
    utility: 2,
    finalUtility: 1,
    attackSucceeded: attacked ? 3 : 0,
    finalAttackSucceeded: attacked ? 2 : 0,
    ...counts,
  });

  it("puts each pipeline's runs without attack under utility, and its attacked runs under utility under attack and attack success", () => {
    const [defended] = pipelineTradeOffs([row("defended", false), row("defended", true, { utility: 1, finalUtility: 0 })]);
    expect(defended!.pipeline).toBe("defended");
    expect(defended!.runs).toBe(8);
    expect(defended!.utility).toEqual(outcomeFigures({ runs: 4, successes: 2, final: 3, finalSuccesses: 1, unresolved: 1 }));
    expect(defended!.utilityUnderAttack).toEqual(outcomeFigures({ runs: 4, successes: 1, final: 3, finalSuccesses: 0, unresolved: 1 }));
    expect(defended!.attackSuccess).toEqual(outcomeFigures({ runs: 4, successes: 3, final: 3, finalSuccesses: 2, unresolved: 1 }));
  });

  it("orders pipelines by name, names a run without a pipeline, and leaves a figure with no runs at N = 0", () => {
    const rows = pipelineTradeOffs([row("b", true), row(null, false), row("a", false)]);
    expect(rows.map((r) => r.pipeline)).toEqual([NO_PIPELINE, "a", "b"]);
    expect(rows[1]!.attackSuccess.reported).toEqual({ n: 0, N: 0, rate: null, wilson95: null });
    expect(rows[2]!.utility.reported.N).toBe(0);
  });
});

describe("withoutAttack", () => {
  it("is every scored run less the attacked ones, figure by figure", () => {
    expect(
      withoutAttack(
        { runs: 10, successes: 6, final: 8, finalSuccesses: 5, unresolved: 2 },
        { runs: 4, successes: 1, final: 3, finalSuccesses: 1, unresolved: 1 },
      ),
    ).toEqual({ runs: 6, successes: 5, final: 5, finalSuccesses: 4, unresolved: 1 });
  });
});

describe("labelRates", () => {
  it("names security attack success and any other label by its name, each reported and final-only with its Wilson interval", () => {
    const rates = labelRates({
      security: {
        reported: { successes: 2, n: 3 },
        final: { successes: 1, n: 2 },
        unresolved: { n: 1, byReason: { pending_at_scoring: 1 } },
      },
      refusal: { reported: { successes: 0, n: 5 }, final: { successes: 0, n: 5 }, unresolved: { n: 0, byReason: {} } },
    });
    expect(rates.map((r) => [r.name, r.n, r.N])).toEqual([
      ["attack success rate (reported)", 2, 3],
      ["final-only attack success rate", 1, 2],
      ['label "refusal" success rate (reported)', 0, 5],
      ['final-only label "refusal" success rate', 0, 5],
    ]);
    expect(rates[0]!.wilson95).toEqual(wilsonInterval(2, 3));
    expect(rates[1]!.population).toMatch(/^final runs under attack/);
  });
});

import { describe, expect, it } from "vitest";
import { addClusterSums, clusterSums, designEffect, unitLevelFigures, type UnitRow } from "./unit-level";
import { wilsonInterval } from "./wilson";

/** Rows of units given as outcome lists: units([1, 0], [1]) gives unit u0 two rows and u1 one. */
const units = (...outcomes: Array<Array<0 | 1>>): UnitRow[] =>
  outcomes.flatMap((rows, j) => rows.map((o) => ({ unitId: `u${j}`, success: o === 1 })));

describe("the design effect", () => {
  it("is 1 when every row is its own unit", () => {
    // Σy² = Σy·m = n = 2, Σm² = N = 3: (9·2 − 2·2·3·2 + 4·3)/(3·2·1) = (18 − 24 + 12)/6 = 1
    const sums = clusterSums(units([1], [1], [0]));
    expect(sums).toEqual({ rows: 3, successes: 2, units: 3, sumSquaredSuccesses: 2, sumSuccessesTimesRows: 2, sumSquaredRows: 3 });
    expect(designEffect(sums)).toBe(1);
  });

  it("is the number of rows per unit when every unit's rows agree", () => {
    // pairs (1,1)(1,1)(0,0)(0,0): N = 8, n = 4, Σy² = 4+4 = 8, Σy·m = 2·2+2·2 = 8, Σm² = 4·4 = 16
    // (64·8 − 2·4·8·8 + 16·16)/(8·4·4) = (512 − 512 + 256)/128 = 2
    expect(designEffect(clusterSums(units([1, 1], [1, 1], [0, 0], [0, 0])))).toBe(2);
  });

  it("takes unequal units exactly", () => {
    // units (1,1,1)(0,0)(1): N = 6, n = 4, y = (3,0,1), m = (3,2,1): Σy² = 10, Σy·m = 10, Σm² = 14
    // (36·10 − 2·4·6·10 + 16·14)/(6·4·2) = (360 − 480 + 224)/48 = 104/48 = 13/6, above N/G = 2
    // check by residuals: p = 2/3, y − p·m = 1, −4/3, 1/3, Σ² = 26/9; V_cluster = 26/9/36 = 26/324; V_binomial = (2/9)/6 = 12/324; ratio 13/6
    expect(designEffect(clusterSums(units([1, 1, 1], [0, 0], [1])))).toBeCloseTo(13 / 6, 15);
  });

  it("is floored at N/G when a unit's rows disagree (the replay's grouped pairs: A succeeds, B fails)", () => {
    // (1,0)(1,0)(1,0)(1,1): N = 8, n = 5, Σy² = 3+4 = 7, Σy·m = 3·2+2·2 = 10, Σm² = 16
    // (64·7 − 2·5·8·10 + 25·16)/(8·5·3) = (448 − 800 + 400)/120 = 0.4 → N/G = 8/4 = 2
    expect(designEffect(clusterSums(units([1, 0], [1, 0], [1, 0], [1, 1])))).toBe(2);
  });

  it("never lets the effective N pass the number of units, though the ratio alone is above 1", () => {
    // (1,1,1)(0)(1,0)(1)(0)(1): N = 9, n = 6, G = 6, Σy² = 9+1+1+1 = 12, Σy·m = 9+2+1+1 = 13, Σm² = 9+1+4+1+1+1 = 17
    // ratio (81·12 − 2·6·9·13 + 36·17)/(9·6·3) = (972 − 1404 + 612)/162 = 180/162 = 10/9: N/ratio = 8.1 rows "effective" of 6 units
    const sums = clusterSums(units([1, 1, 1], [0], [1, 0], [1], [0], [1]));
    expect(sums).toEqual({ rows: 9, successes: 6, units: 6, sumSquaredSuccesses: 12, sumSuccessesTimesRows: 13, sumSquaredRows: 17 });
    expect(designEffect(sums)).toBe(1.5); // N/G = 9/6
    expect(unitLevelFigures(sums).units.effectiveN).toBe(6);
  });

  it("is N/G when every row has the same outcome, and null without rows", () => {
    expect(designEffect(clusterSums(units([1, 1], [1, 1], [1, 1])))).toBe(2); // 6/3
    expect(designEffect(clusterSums(units([0, 0, 0], [0])))).toBe(2); // 4/2
    expect(designEffect(clusterSums([]))).toBeNull();
  });

  it("pools disjoint sets by adding their sums", () => {
    const pooled = addClusterSums(
      clusterSums(units([1, 1], [0, 0])),
      clusterSums(units([1], [0]).map((r) => ({ ...r, unitId: `v${r.unitId}` }))),
    );
    expect(pooled).toEqual(clusterSums([...units([1, 1], [0, 0]), ...units([1], [0]).map((r) => ({ ...r, unitId: `v${r.unitId}` }))]));
  });
});

describe("unit-level figures", () => {
  it("put the rows-based interval beside Wilson's on N/deff", () => {
    const figures = unitLevelFigures(clusterSums(units([1, 1], [1, 1], [0, 0], [0, 0])));
    expect(figures.rows).toEqual({ n: 4, N: 8, wilson95: wilsonInterval(4, 8) });
    expect(figures.units.analysisUnits).toBe(4);
    expect(figures.units.designEffect).toBe(2);
    expect(figures.units.effectiveN).toBe(4); // 8/2
    // Wilson(0.5, 4): centre 0.5, half = (1.959964/1.960365)·√(0.0625 + 3.841459/64) = 0.999795·0.350033 = 0.349961
    expect(figures.units.wilson95![0]).toBeCloseTo(0.150039, 6);
    expect(figures.units.wilson95![1]).toBeCloseTo(0.849961, 6);
    // rows-based Wilson(4, 8) is narrower: [0.215216, 0.784784]
    expect(figures.rows.wilson95![0]).toBeCloseTo(0.215216, 6);
  });

  it("at p = 1 count the units: lower bound G/(G + z²)", () => {
    // 6 rows in 3 units, all successes: deff 2, N_eff 3, lower = 3/(3 + 3.841459) = 0.438503
    const figures = unitLevelFigures(clusterSums(units([1, 1], [1, 1], [1, 1])));
    expect(figures.units.effectiveN).toBe(3);
    expect(figures.units.wilson95![0]).toBeCloseTo(0.438503, 6);
    expect(figures.units.wilson95![1]).toBe(1);
  });

  it("have no interval without rows", () => {
    expect(unitLevelFigures(clusterSums([]))).toEqual({
      rows: { n: 0, N: 0, wilson95: null },
      units: { analysisUnits: 0, designEffect: null, effectiveN: 0, wilson95: null },
    });
  });
});

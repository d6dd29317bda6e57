import { describe, expect, it } from "vitest";
import { WILSON_Z_95, formatWilson95, intervalWords, wilsonForProportion, wilsonInterval } from "./wilson";

// z² = 1.959963984540054² = 3.841458820694125 throughout.

describe("the Wilson interval", () => {
  it("has no interval without trials", () => {
    expect(wilsonInterval(0, 0)).toBeNull();
    expect(wilsonForProportion(0, 0)).toBeNull();
  });

  it("starts at exactly 0 for 0/N and ends at exactly 1 for N/N", () => {
    // p = 0: centre = half-width = (z²/2N)/(1 + z²/N), so upper = z²/(N + z²) = 3.841459/153.841459 = 0.024970
    const none = wilsonInterval(0, 150)!;
    expect(none[0]).toBe(0);
    expect(none[1]).toBeCloseTo(0.02497, 5);
    // p = 1: lower = N/(N + z²) = 150/153.841459 = 0.975030
    const all = wilsonInterval(150, 150)!;
    expect(all[0]).toBeCloseTo(0.97503, 5);
    expect(all[1]).toBe(1);
    // N = 1: 0/1 → upper = z²/(1 + z²) = 3.841459/4.841459 = 0.793451; 1/1 → lower = 1/4.841459 = 0.206549
    expect(wilsonInterval(0, 1)![1]).toBeCloseTo(0.793451, 6);
    expect(wilsonInterval(1, 1)![0]).toBeCloseTo(0.206549, 6);
  });

  it("matches the hand computation inside (0, 1)", () => {
    // 5/10: centre = (0.5 + 0.192073)/1.384146 = 0.5; half = (1.959964/1.384146)·√(0.025 + 0.009604) = 1.416005·0.186021 = 0.263407
    const half = wilsonInterval(5, 10)!;
    expect(half[0]).toBeCloseTo(0.236593, 6);
    expect(half[1]).toBeCloseTo(0.763407, 6);
    // 150/200: centre = (0.75 + 0.009604)/1.019207 = 0.745289; half = 1.923028·√(0.0009375 + 0.0000240) = 1.923028·0.031008 = 0.059630
    const shared = wilsonInterval(150, 200)!;
    expect(shared[0]).toBeCloseTo(0.685659, 6);
    expect(shared[1]).toBeCloseTo(0.804918, 6);
  });

  it("takes a fractional, design-adjusted size", () => {
    // 0.5 over N = 10 is 5/10 above; the same proportion over 5 (deff 2) is wider:
    // centre 0.5; half = (1.959964/1.768292)·√(0.05 + 0.038415) = 1.108394·0.297346 = 0.329576
    const adjusted = wilsonForProportion(0.5, 5)!;
    expect(adjusted[0]).toBeCloseTo(0.170424, 6);
    expect(adjusted[1]).toBeCloseTo(0.829576, 6);
    expect(WILSON_Z_95).toBe(1.959963984540054);
  });

  it("refuses counts that are not counts", () => {
    expect(() => wilsonInterval(3, 2)).toThrow(RangeError);
    expect(() => wilsonInterval(-1, 2)).toThrow(RangeError);
    expect(() => wilsonInterval(0.5, 2)).toThrow(RangeError);
    expect(() => wilsonForProportion(1.2, 5)).toThrow(RangeError);
  });

  it("prints as pages show it", () => {
    expect(formatWilson95(150, 200)).toBe("95% Wilson [68.6%, 80.5%]"); // [0.685659, 0.804918] above
    expect(formatWilson95(0, 150)).toBe("95% Wilson [0.0%, 2.5%]"); // upper 0.024970
    expect(formatWilson95(0, 0)).toBeNull();
  });

  it("names an interval in words for a chart, or says there is none", () => {
    expect(intervalWords([0.686, 0.805])).toBe("95% Wilson 68.6%–80.5%");
    expect(intervalWords(null)).toBe("no interval (N = 0)");
  });
});

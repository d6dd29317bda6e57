import { describe, expect, it } from "vitest";
import { whiskerOffsets, wilsonWhisker } from "./whiskers";
import { wilsonInterval } from "./wilson";

describe("whiskers", () => {
  it("gives the distances below and above the rate, which add up to the interval's width", () => {
    const [lower, upper] = wilsonInterval(30, 120)!;
    const [below, above] = wilsonWhisker(30, 120);
    expect(0.25 - below).toBeCloseTo(lower, 12);
    expect(0.25 + above).toBeCloseTo(upper, 12);
    expect(below + above).toBeCloseTo(upper - lower, 12);
    // Wilson is asymmetric away from 1/2: more room above 25% than below.
    expect(above).toBeGreaterThan(below);
  });

  it("keeps a whisker above 0/N and below N/N, where the interval still has width", () => {
    const [belowZero, aboveZero] = wilsonWhisker(0, 50);
    expect(belowZero).toBe(0);
    expect(aboveZero).toBeGreaterThan(0.05);
    const [belowAll, aboveAll] = wilsonWhisker(50, 50);
    expect(aboveAll).toBe(0);
    expect(belowAll).toBeGreaterThan(0.05);
  });

  it("draws no whisker without runs or without a rate", () => {
    expect(wilsonWhisker(0, 0)).toEqual([0, 0]);
    expect(whiskerOffsets(null, [0.1, 0.2])).toEqual([0, 0]);
    expect(whiskerOffsets(0.5, null)).toEqual([0, 0]);
  });
});

import { describe, expect, it } from "vitest";
import { binomial, exactRatio } from "./exact";

describe("exact binomials", () => {
  it("match the small cases by hand and the edges", () => {
    expect(binomial(5, 2)).toBe(10n); // 5·4/2
    expect(binomial(10, 3)).toBe(120n); // 10·9·8/6
    expect(binomial(7, 0)).toBe(1n);
    expect(binomial(7, 7)).toBe(1n);
    expect(binomial(3, 4)).toBe(0n); // no way to pick 4 of 3
    expect(binomial(3, -1)).toBe(0n);
  });

  it("stay exact past a double's mantissa", () => {
    // C(100, 50) = 100891344545564193334812497256 (a classic value; far above 2^53)
    expect(binomial(100, 50)).toBe(100891344545564193334812497256n);
    // Pascal's rule, exactly: C(200, 100) = C(199, 99) + C(199, 100)
    expect(binomial(200, 100)).toBe(binomial(199, 99) + binomial(199, 100));
  });
});

describe("exact ratios", () => {
  it("round once to the nearest double", () => {
    expect(exactRatio(1n, 3n)).toBe(1 / 3);
    expect(exactRatio(0n, 7n)).toBe(0);
    expect(exactRatio(-1n, 4n)).toBe(-0.25);
    // C(999, 500)/C(1000, 500) = (1000 − 500)/1000 = 0.5 exactly, though both are ≈ 10^299
    expect(exactRatio(binomial(999, 500), binomial(1000, 500))).toBe(0.5);
    // 1/C(100, 50) ≈ 9.911653e-30: representable, and not lost to a float product
    expect(exactRatio(1n, binomial(100, 50))).toBeCloseTo(9.911653e-30, 35);
  });

  it("reaches numbers a double cannot hold as integers", () => {
    // C(2000, 1000)/C(2000, 999) = (2000 − 999)/1000 = 1.001 with both near 10^600 (Infinity as doubles)
    expect(exactRatio(binomial(2000, 1000), binomial(2000, 999))).toBe(1.001);
    expect(() => exactRatio(1n, 0n)).toThrow(RangeError);
  });
});

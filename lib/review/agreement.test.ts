import { describe, expect, it } from "vitest";
import { cohensKappa, fieldAgreement, fleissKappa, percentAgreement } from "./agreement";

describe("percentAgreement", () => {
  it("counts items on which every rater agrees, skipping items with one rating", () => {
    expect(percentAgreement([["E", "E"], ["E", "P"], ["NR", "NR", "NR"], ["P"]])).toEqual({ agreed: 2, of: 3 });
  });
});

describe("cohensKappa", () => {
  it("matches a hand-computed 2x2 table: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no", () => {
    // po = 35/50 = 0.7; pe = 0.5*0.6 + 0.5*0.4 = 0.5; kappa = (0.7 - 0.5) / 0.5 = 0.4
    const pairs: ["E" | "NR", "E" | "NR"][] = [
      ...Array<["E", "E"]>(20).fill(["E", "E"]),
      ...Array<["E", "NR"]>(5).fill(["E", "NR"]),
      ...Array<["NR", "E"]>(10).fill(["NR", "E"]),
      ...Array<["NR", "NR"]>(15).fill(["NR", "NR"]),
    ];
    expect(cohensKappa(pairs).value).toBeCloseTo(0.4, 12);
  });

  it("is 1 for perfect agreement over several codes, and 0 at chance", () => {
    expect(
      cohensKappa([
        ["E", "E"],
        ["P", "P"],
        ["NR", "NR"],
      ]).value,
    ).toBe(1);
    // A always E, B half E half P: po = 0.5, pe = 1*0.5 = 0.5 → 0
    expect(
      cohensKappa([
        ["E", "E"],
        ["E", "P"],
      ]).value,
    ).toBe(0);
  });

  it("is undefined, with the reason, when both reviewers used one code only", () => {
    expect(
      cohensKappa([
        ["E", "E"],
        ["E", "E"],
      ]),
    ).toEqual({ value: null, reason: expect.stringContaining("only one code (E)") });
    expect(cohensKappa([])).toMatchObject({ value: null });
  });
});

describe("fleissKappa", () => {
  it("matches Fleiss' worked example (10 items, 14 raters, 5 categories): 0.210", () => {
    const counts = [
      [0, 0, 0, 0, 14],
      [0, 2, 6, 4, 2],
      [0, 0, 3, 5, 6],
      [0, 3, 9, 2, 0],
      [2, 2, 8, 1, 1],
      [7, 7, 0, 0, 0],
      [3, 2, 6, 3, 0],
      [2, 5, 3, 2, 2],
      [6, 5, 2, 1, 0],
      [0, 2, 2, 3, 7],
    ];
    const items = counts.map((row) => row.flatMap((count, c) => Array<string>(count).fill(`c${c}`)));
    expect(fleissKappa(items).value).toBeCloseTo(0.20993, 4);
  });

  it("equals 1 for perfect agreement, and is undefined for one category only or uneven ratings", () => {
    expect(
      fleissKappa([
        ["E", "E", "E"],
        ["NR", "NR", "NR"],
      ]).value,
    ).toBe(1);
    expect(
      fleissKappa([
        ["P", "P", "P"],
        ["P", "P", "P"],
      ]),
    ).toMatchObject({ value: null, reason: expect.stringContaining("one code (P)") });
    expect(
      fleissKappa([
        ["E", "E"],
        ["E", "P", "P"],
      ]),
    ).toMatchObject({ value: null, reason: expect.stringContaining("same number") });
  });

  it("agrees with Cohen's kappa's observed agreement structure for two raters (Scott's pi)", () => {
    // With two raters Fleiss' kappa is Scott's pi: pooled marginals. Pairs E/E, E/P, P/P, P/P:
    // po = 3/4; pooled p(E) = 3/8, p(P) = 5/8; pe = 9/64 + 25/64 = 34/64; pi = (48/64 - 34/64)/(30/64) = 14/30
    expect(
      fleissKappa([
        ["E", "E"],
        ["E", "P"],
        ["P", "P"],
        ["P", "P"],
      ]).value,
    ).toBeCloseTo(14 / 30, 12);
  });
});

describe("fieldAgreement", () => {
  it("compares two reviewers over the protocols both coded, with Cohen's kappa and the disagreeing cells", () => {
    const cells = [
      { item: "WebArena", rater: "ana", code: "NR" },
      { item: "WebArena", rater: "ben", code: "NR" },
      { item: "OSWorld", rater: "ana", code: "P" },
      { item: "OSWorld", rater: "ben", code: "NR" },
      { item: "Cybench", rater: "ana", code: "P" }, // ben has not coded it: not compared
    ];
    const result = fieldAgreement(cells);
    expect(result).toMatchObject({
      raters: ["ana", "ben"],
      items: 2,
      percent: { agreed: 1, of: 2 },
      statistic: "cohen",
      disagreements: ["OSWorld"],
    });
    // po = 1/2; ana NR 1/2, P 1/2; ben NR 1 → pe = 1/2 → kappa 0
    expect(result.kappa.value).toBe(0);
  });

  it("uses Fleiss' kappa for three reviewers, and none for one", () => {
    const three = ["a", "b", "c"].flatMap((rater) => [
      { item: "x", rater, code: "E" },
      { item: "y", rater, code: "NR" },
    ]);
    expect(fieldAgreement(three)).toMatchObject({ statistic: "fleiss", kappa: { value: 1 }, disagreements: [] });
    expect(fieldAgreement([{ item: "x", rater: "a", code: "E" }])).toMatchObject({ statistic: null, kappa: { value: null } });
  });

  it("compares a team that double-codes each protocol with a different pair: Fleiss over every pair's items", () => {
    const cells = [
      { item: "OSWorld", rater: "ana", code: "P" },
      { item: "OSWorld", rater: "ben", code: "NR" },
      { item: "Own", rater: "ana", code: "P" },
      { item: "Own", rater: "cal", code: "P" },
      { item: "Cybench", rater: "cal", code: "E" }, // one rating: not compared
    ];
    const result = fieldAgreement(cells);
    expect(result).toMatchObject({
      raters: ["ana", "ben", "cal"],
      items: 2,
      percent: { agreed: 1, of: 2 },
      statistic: "fleiss",
      disagreements: ["OSWorld"],
    });
    // Fleiss, 2 ratings per item: P_i = 0 (OSWorld), 1 (Own) → mean 1/2; P 3/4, NR 1/4 → pe = 9/16 + 1/16 = 5/8
    // kappa = (1/2 - 5/8) / (3/8) = -1/3
    expect(result.kappa.value).toBeCloseTo(-1 / 3, 12);
  });
});

describe("agreementCaveat", () => {
  it("warns when a kappa rests on fewer than five protocols, and not otherwise", async () => {
    const { agreementCaveat, MIN_ITEMS_FOR_KAPPA } = await import("./agreement");
    expect(agreementCaveat({ items: 1, kappa: { value: -0.5 } })).toContain("rests on 1 protocol compared");
    expect(agreementCaveat({ items: MIN_ITEMS_FOR_KAPPA, kappa: { value: 0.6 } })).toBeNull();
    expect(agreementCaveat({ items: 1, kappa: { value: null, reason: "fewer than two reviewers" } })).toBeNull();
  });
});

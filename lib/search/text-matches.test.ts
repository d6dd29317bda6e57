import { describe, expect, it } from "vitest";
import { findMatches, stepMatch } from "./text-matches";

describe("findMatches", () => {
  it("finds every occurrence in every text, whatever the case, in order", () => {
    expect(findMatches(["Marguerite said", "no", "ask MARGUERITE or marguerite"], "marguerite")).toEqual([
      { text: 0, start: 0, end: 10 },
      { text: 2, start: 4, end: 14 },
      { text: 2, start: 18, end: 28 },
    ]);
  });

  it("does not overlap occurrences, and finds nothing for an empty or blank text", () => {
    expect(findMatches(["aaaa"], "aa")).toEqual([
      { text: 0, start: 0, end: 2 },
      { text: 0, start: 2, end: 4 },
    ]);
    expect(findMatches(["anything"], "  ")).toEqual([]);
    expect(findMatches([], "x")).toEqual([]);
  });

  it("keeps offsets right in a text whose lower case has another length", () => {
    // "İ" lower-cases to two code units: the text is searched as written, so offsets stay those of the text.
    expect(findMatches(["İstanbul refund"], "refund")).toEqual([{ text: 0, start: 9, end: 15 }]);
  });
});

describe("stepMatch", () => {
  it("goes round at either end", () => {
    expect(stepMatch(0, 3, 1)).toBe(1);
    expect(stepMatch(2, 3, 1)).toBe(0);
    expect(stepMatch(0, 3, -1)).toBe(2);
    expect(stepMatch(0, 0, 1)).toBe(0);
  });
});

import { describe, expect, it } from "vitest";
import { SEPARATION_CONDITIONS } from "./config";
import { analysisUnits, inheritedStateFor, isExposed, sharesKeySpace } from "./separation-rules";

describe("isExposed", () => {
  it("is exposure when the value B scored was written by A's operation", () => {
    expect(isExposed({ scoredEntryWrittenBy: "op_a", aHandle: "op_a" })).toBe(true);
  });
  it("is not exposure when B's own initialisation is what it scored, or A wrote nothing", () => {
    expect(isExposed({ scoredEntryWrittenBy: "initialise", aHandle: "op_a" })).toBe(false);
    expect(isExposed({ scoredEntryWrittenBy: null, aHandle: "op_a" })).toBe(false);
    expect(isExposed({ scoredEntryWrittenBy: "initialise", aHandle: null })).toBe(false);
  });
});

describe("analysisUnits", () => {
  it("counts connected pairs once under grouped analysis and run rows otherwise", () => {
    expect(analysisUnits("grouped", 400, 200)).toBe(200);
    for (const condition of SEPARATION_CONDITIONS.filter((c) => c !== "grouped")) expect(analysisUnits(condition, 400, 200)).toBe(400);
  });
});

describe("key spaces and inherited state", () => {
  it("only namespacing gives A and B different key spaces", () => {
    expect(SEPARATION_CONDITIONS.filter((c) => !sharesKeySpace(c))).toEqual(["namespaced"]);
  });
  it("marks B internal only where A's pending write can reach its value", () => {
    expect(inheritedStateFor("shared", "B")).toBe("internal");
    expect(inheritedStateFor("grouped", "B")).toBe("internal");
    for (const condition of ["namespaced", "verified_reset", "no_write", "b_before_a"] as const) expect(inheritedStateFor(condition, "B")).toBe("none");
    expect(inheritedStateFor("shared", "A")).toBe("none");
    expect(inheritedStateFor("finality", "single")).toBe("none");
  });
});

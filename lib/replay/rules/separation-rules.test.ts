import { describe, expect, it } from "vitest";
import { SEPARATION_CONDITIONS } from "./config";
import { analysisUnits, inheritedStateFor, isExposed, resetVerified, sharesKeySpace } from "./separation-rules";

describe("isExposed", () => {
  it("is exposure when the value B scored was written by A's operation", () => {
    expect(isExposed({ scoredEntriesWrittenBy: ["op_a"], aHandles: ["op_a"] })).toBe(true);
  });
  it("is not exposure when B's own initialisation is what it scored, or A wrote nothing", () => {
    expect(isExposed({ scoredEntriesWrittenBy: ["initialise"], aHandles: ["op_a"] })).toBe(false);
    expect(isExposed({ scoredEntriesWrittenBy: [null], aHandles: ["op_a"] })).toBe(false);
    expect(isExposed({ scoredEntriesWrittenBy: ["initialise"], aHandles: [] })).toBe(false);
  });
  it("with several writes, is exposure when any one of B's scored keys was written by any of A's operations", () => {
    expect(isExposed({ scoredEntriesWrittenBy: ["initialise", "op_a2", "initialise"], aHandles: ["op_a1", "op_a2", "op_a3"] })).toBe(true);
    expect(isExposed({ scoredEntriesWrittenBy: ["initialise", "initialise"], aHandles: ["op_a1", "op_a2"] })).toBe(false);
    // A write of another pair is not A's.
    expect(isExposed({ scoredEntriesWrittenBy: ["op_other"], aHandles: ["op_a1", "op_a2"] })).toBe(false);
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
    for (const condition of ["namespaced", "verified_reset", "no_write", "b_before_a"] as const)
      expect(inheritedStateFor(condition, "B")).toBe("none");
    expect(inheritedStateFor("shared", "A")).toBe("none");
    expect(inheritedStateFor("finality", "single")).toBe("none");
  });
});

describe("resetVerified", () => {
  const entry = (key: string, value: { amount: number }) => ({ key, value, version: 1, writtenBy: "reset", writtenAtMs: 110 });
  const verified = { resetAtMs: 120, pendingOperations: 0, entries: [entry("k", { amount: 1 })] };
  const reset = (changes: Partial<typeof verified>) => ({ ...verified, ...changes });
  it("holds when the read-back is exactly B's initial value and nothing can still land", () => {
    expect(resetVerified(reset({}), ["k"], { amount: 1 })).toBe(true);
  });
  it("with several writes, holds only when every key reads back B's value", () => {
    const two = reset({ entries: [entry("k", { amount: 1 }), entry("k2", { amount: 1 })] });
    expect(resetVerified(two, ["k", "k2"], { amount: 1 })).toBe(true);
    expect(resetVerified(reset({ entries: [entry("k", { amount: 1 }), entry("k2", { amount: 2 })] }), ["k", "k2"], { amount: 1 })).toBe(
      false,
    );
    expect(resetVerified(reset({}), ["k", "k2"], { amount: 1 })).toBe(false);
  });
  it("fails without a reset, with an operation still pending, or with any other entry or value", () => {
    expect(resetVerified(null, ["k"], { amount: 1 })).toBe(false);
    expect(resetVerified(reset({ pendingOperations: 1 }), ["k"], { amount: 1 })).toBe(false);
    expect(resetVerified(reset({}), ["k"], { amount: 2 })).toBe(false);
    expect(resetVerified(reset({}), ["other"], { amount: 1 })).toBe(false);
    expect(resetVerified(reset({ entries: [] }), ["k"], { amount: 1 })).toBe(false);
    expect(resetVerified(reset({ entries: [...verified.entries, entry("k2", { amount: 1 })] }), ["k"], { amount: 1 })).toBe(false);
  });
});

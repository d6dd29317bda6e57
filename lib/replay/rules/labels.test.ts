import { describe, expect, it } from "vitest";
import { disagrees, finalAtScoring, labelFor, labelForAll, recordedLabel, scoreOf, terminalLabelForAll } from "./labels";

describe("labelFor", () => {
  it("is success only when the held value equals the expected one", () => {
    expect(labelFor({ a: 1, b: [2] }, { a: 1, b: [2] })).toBe("success");
    expect(labelFor({ a: 1 }, { a: 2 })).toBe("failure");
    expect(labelFor(undefined, { a: 1 })).toBe("failure");
    expect(labelFor(null, { a: 1 })).toBe("failure");
  });
});

describe("recordedLabel", () => {
  it("snapshot policies record the endpoint label", () => {
    expect(recordedLabel("snapshot", "failure", "success")).toBe("failure");
    expect(recordedLabel("sync_snapshot", "success", "success")).toBe("success");
  });
  it("reconciliation and verified cancellation record the terminal label", () => {
    expect(recordedLabel("reconciliation", "failure", "success")).toBe("success");
    expect(recordedLabel("verified_cancellation", "failure", "failure")).toBe("failure");
    expect(recordedLabel("sync_reconciliation", "success", "unresolved")).toBe("unresolved");
  });
});

describe("disagrees", () => {
  it("counts differing labels, an unresolved terminal included", () => {
    expect(disagrees("failure", "success")).toBe(true);
    expect(disagrees("success", "success")).toBe(false);
    expect(disagrees("success", "unresolved")).toBe(true);
  });
  it("is false when a label is missing", () => {
    expect(disagrees(null, "success")).toBe(false);
    expect(disagrees("success", null)).toBe(false);
  });
});

describe("scoreOf", () => {
  it("scores success 1, failure 0 and leaves unresolved unscored", () => {
    expect(scoreOf("success")).toBe(1);
    expect(scoreOf("failure")).toBe(0);
    expect(scoreOf("unresolved")).toBeNull();
    expect(scoreOf(null)).toBeNull();
  });
});

describe("several state-changing calls", () => {
  it("a task succeeds only when every one of its keys holds its expected value", () => {
    expect(
      labelForAll([
        { held: { a: 1 }, expected: { a: 1 } },
        { held: { b: 2 }, expected: { b: 2 } },
      ]),
    ).toBe("success");
    expect(
      labelForAll([
        { held: { a: 1 }, expected: { a: 1 } },
        { held: undefined, expected: { b: 2 } },
      ]),
    ).toBe("failure");
    expect(labelForAll([])).toBe("failure");
  });
  it("a label is final only when every operation is terminal", () => {
    expect(terminalLabelForAll([true, true, true], "success")).toBe("success");
    expect(terminalLabelForAll([true, false, true], "success")).toBe("unresolved");
    expect(terminalLabelForAll([true, false], "failure")).toBe("unresolved");
    expect(terminalLabelForAll([], "success")).toBe("unresolved");
  });
  it("is final at scoring only when every operation settled no later than the scoring read", () => {
    expect(finalAtScoring([10, 20], 20)).toBe(true);
    expect(finalAtScoring([10, 21], 20)).toBe(false);
    expect(finalAtScoring([10, null], 20)).toBe(false);
    expect(finalAtScoring([], 20)).toBe(false);
  });
});

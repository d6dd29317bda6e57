import { describe, expect, it } from "vitest";
import { ledgerDiff } from "./diff";

describe("ledgerDiff", () => {
  it("lists exactly the keys that changed, ignoring the version", () => {
    expect(ledgerDiff({ code: "P", basis: "a", citations: ["37"], version: 1 }, { code: "NR", citations: ["37"], version: 2 })).toEqual([
      { key: "basis", before: "a", after: "—" },
      { key: "code", before: "P", after: "NR" },
    ]);
  });
  it("shows every key of a first version as added", () => {
    expect(ledgerDiff(null, { code: "E", citations: [] })).toEqual([{ key: "code", before: "—", after: "E" }]);
  });
});

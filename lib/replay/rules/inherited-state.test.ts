import { describe, expect, it } from "vitest";
import { INHERITED_RANK, morePublic, mostPublicInheritedSql } from "./inherited-state";

describe("inherited state", () => {
  it("ranks none below internal below public", () => {
    expect(INHERITED_RANK).toEqual({ none: 0, internal: 1, public: 2 });
    expect(morePublic("internal", "public")).toBe("public");
    expect(morePublic("public", "none")).toBe("public");
    expect(morePublic("none", "internal")).toBe("internal");
    expect(morePublic("none", "none")).toBe("none");
  });

  it("renders the same rank as a SQL aggregate", () => {
    expect(mostPublicInheritedSql("inherited")).toBe(
      "CASE max(CASE inherited WHEN 'public' THEN 2 WHEN 'internal' THEN 1 ELSE 0 END) WHEN 2 THEN 'public' WHEN 1 THEN 'internal' ELSE 'none' END",
    );
  });
});

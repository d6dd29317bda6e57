import { describe, expect, it } from "vitest";
import { isWellFormedPath } from "./well-formed-path";

describe("a request path's %-escapes", () => {
  it("decode as UTF-8, or the path is refused; the query is not looked at", () => {
    for (const fine of ["/", "/api/v1/runs/42", "/traces/%E2%9C%93", "/s/abc?x=%FF", "/a%2Fb", "/x#%FF"])
      expect(isWellFormedPath(fine), fine).toBe(true);
    for (const bad of ["/api/v1/runs/%ED%A0%80", "/runs/%FF%FE", "/runs/%E2%9C", "/%", "/a%zz"])
      expect(isWellFormedPath(bad), bad).toBe(false);
  });
});

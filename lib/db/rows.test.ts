import { describe, expect, it } from "vitest";
import { z } from "zod";
import { countColumn, onlyRowOf, rowsOf } from "./rows";

describe("raw rows", () => {
  const row = z.object({ id: z.string(), n: countColumn });

  it("parses every row, counts from int, bigint or text alike", () => {
    expect(
      rowsOf(row, [
        { id: "a", n: 1 },
        { id: "b", n: 2n },
        { id: "c", n: "3" },
      ]),
    ).toEqual([
      { id: "a", n: 1 },
      { id: "b", n: 2 },
      { id: "c", n: 3 },
    ]);
  });

  it("names the row and column a changed query breaks", () => {
    expect(() =>
      rowsOf(row, [
        { id: "a", n: 1 },
        { id: 7, n: 1 },
      ]),
    ).toThrow(/1.*id|id.*1/s);
    expect(() => rowsOf(row, [{ id: "a", n: -1 }])).toThrow();
  });

  it("takes the one row of an aggregate, and refuses none or several", () => {
    expect(onlyRowOf(row, [{ id: "a", n: 0 }])).toEqual({ id: "a", n: 0 });
    expect(() => onlyRowOf(row, [])).toThrow("expected exactly one row, got 0");
    expect(() =>
      onlyRowOf(row, [
        { id: "a", n: 0 },
        { id: "b", n: 0 },
      ]),
    ).toThrow("expected exactly one row, got 2");
  });
});

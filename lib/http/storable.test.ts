import { describe, expect, it } from "vitest";
import { z } from "zod";
import { bigintDigits, findUnstorable, int4, pgTime, printable, truncateText, unstorableTextReason } from "./storable";

describe("what PostgreSQL can store", () => {
  it("refuses text with NUL or a lone surrogate, and accepts any well-formed text", () => {
    expect(unstorableTextReason("a\u0000b")).toMatch(/NUL/);
    expect(unstorableTextReason("sur\ud800")).toMatch(/lone surrogate/);
    expect(unstorableTextReason("\udc00x")).toMatch(/lone surrogate/);
    expect(unstorableTextReason("\udc00\ud800")).toMatch(/lone surrogate/); // a low then a high: no pair
    for (const fine of ["", "plain", "emoji 😀", "\ud83d\ude00", "tab\tnewline\n", "\u00a0\uffff"])
      expect(unstorableTextReason(fine), fine).toBeNull();
  });

  it("finds the first unstorable string or key in a JSON value, with its path, escaped", () => {
    expect(findUnstorable({ a: [{ b: "ok" }, { c: "x\u0000" }] })).toEqual({ path: ["a", 1, "c"], message: expect.stringMatching(/NUL/) });
    expect(findUnstorable({ a: { "k\ud800": 1 } }, ["body"])).toEqual({
      path: ["body", "a", "k\\ud800"],
      message: expect.stringMatching(/^a field name must be valid Unicode/),
    });
    expect(findUnstorable({ a: 1, b: [true, null, 2.5, "fine"] })).toBeNull();
    // Only arrays and plain objects are walked: a Date, or a class a use case parses itself, is not.
    class Items {
      constructor(readonly items: unknown[]) {}
    }
    expect(findUnstorable({ when: new Date(0), runs: new Items(["\u0000"]) })).toBeNull();
    expect(findUnstorable(Object.assign(Object.create(null) as object, { k: "\u0000" }))).toMatchObject({ path: ["k"] });
    // Deep nesting is walked without recursion.
    let deep: unknown = "\u0000";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findUnstorable(deep)?.path).toHaveLength(100_000);
    expect(printable("a\u0000b\udfff")).toBe("a\\u0000b\\udfff");
  });

  it("keeps integers within PostgreSQL's integer, ids within its bigint, and times within its years and offsets", () => {
    const attempt = int4("attempt");
    expect(attempt.safeParse(2_147_483_647).success).toBe(true);
    expect(attempt.safeParse(2_147_483_648).error?.issues[0]?.message).toBe("attempt must be at most 2,147,483,647 (PostgreSQL's integer)");
    expect(attempt.safeParse(-1).error?.issues[0]?.message).toBe("attempt must be at least 0");
    expect(attempt.safeParse(1.5).success).toBe(false);
    const unit = bigintDigits("unit", "a run id");
    expect(unit.safeParse("9223372036854775807").success).toBe(true);
    expect(unit.safeParse("9223372036854775808").error?.issues[0]?.message).toMatch(/^unit must be a run id: at most 9223372036854775807/);
    expect(unit.safeParse("-1").success).toBe(false);
    expect(unit.safeParse("12345678901234567890").success).toBe(false);
    expect(unit.safeParse("1\u0000").error?.issues[0]?.message).toBe("unit must be a run id (digits)");
    const at = pgTime("at", "at must be an ISO time");
    expect(at.safeParse("0001-01-01T00:00:00Z").success).toBe(true);
    expect(at.safeParse("9999-12-31T23:59:59.999Z").success).toBe(true);
    expect(at.safeParse("2026-12-01T10:00:00+15:59").success).toBe(true);
    expect(at.safeParse("0000-01-01T00:00:00Z").error?.issues[0]?.message).toBe("at must be between 0001-01-01 and 9999-12-31 (in UTC)");
    // Within the years as written, outside them in UTC: PostgreSQL would read 1 BC, JavaScript write +010000.
    expect(at.safeParse("0001-01-01T00:00:00+14:00").success).toBe(false);
    expect(at.safeParse("9999-12-31T23:59:59.999999999-15:59").success).toBe(false);
    expect(at.safeParse("9999-12-31T23:59:59Z").success).toBe(true);
    expect(at.safeParse("2026-12-01T10:00:00+16:00").error?.issues[0]?.message).toBe("at's offset from UTC must be at most ±15:59");
    expect(at.safeParse("2026-02-30T00:00:00Z").success).toBe(false);
    expect(z.object({ at }).safeParse({ at: "yesterday" }).error?.issues[0]?.message).toBe("at must be an ISO time");
  });

  it("cuts text to a length without leaving half a surrogate pair", () => {
    expect(truncateText("ab😀cd", 3)).toBe("ab");
    expect(truncateText("ab😀cd", 4)).toBe("ab😀");
    expect(truncateText("abc", 5)).toBe("abc");
    expect(unstorableTextReason(truncateText("😀".repeat(150), 201))).toBeNull();
  });
});

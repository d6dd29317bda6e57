import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ApiError } from "./errors";
import { jsonNestingDepth, MAX_JSON_DEPTH, parseInput, parseJsonText, queryFlag, queryObject } from "./input";

const refusal = (fn: () => unknown): ApiError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
};

describe("jsonNestingDepth", () => {
  it("counts arrays and objects, not brackets inside strings", () => {
    expect(jsonNestingDepth("1")).toBe(0);
    expect(jsonNestingDepth('{"a":[1,{"b":2}]}')).toBe(3);
    expect(jsonNestingDepth('{"a":"[[[[{{{{"}')).toBe(1);
    expect(jsonNestingDepth('["\\"[[[", ["x"]]')).toBe(2);
    expect(jsonNestingDepth('["\\\\", ["x"]]')).toBe(2);
    // an escaped backslash then an escaped quote: the string ends only at the quote after them
    expect(jsonNestingDepth('["\\\\\\"[[", ["x"]]')).toBe(2);
    expect(jsonNestingDepth('["unterminated [[')).toBe(1);
  });
  it("stops counting once past the limit", () => {
    expect(jsonNestingDepth("[".repeat(1_000_000), 64)).toBe(65);
  });
});

describe("parseJsonText", () => {
  it("refuses a body nested 20,000 levels deep with a 400 naming the limit, before anything walks it", () => {
    const deep = `${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)}`;
    const error = refusal(() => parseJsonText(deep));
    expect(error).toMatchObject({ status: 400, code: "too_deep" });
    expect(error.message).toContain(`${MAX_JSON_DEPTH}`);
  });
  it("accepts a body at the limit exactly, and an empty body as {}", () => {
    expect(parseJsonText(`${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)}`)).toBeInstanceOf(Array);
    expect(parseJsonText("")).toEqual({});
  });
  it("calls malformed JSON malformed", () => {
    expect(refusal(() => parseJsonText("{not json"))).toMatchObject({ status: 400, code: "malformed_json" });
  });
});

describe("parseInput and queries", () => {
  it("names the field at fault", () => {
    expect(refusal(() => parseInput(z.strictObject({ n: z.number("n must be a number") }), { n: "x" }, "body"))).toMatchObject({ status: 400, field: "n", message: "body.n: n must be a number" });
    expect(refusal(() => parseInput(z.strictObject({}), { extra: 1 }, "query"))).toMatchObject({ field: "extra", message: "unknown field(s) in query: extra" });
  });
  it("reads ?all=true strictly", () => {
    const schema = z.strictObject({ all: queryFlag("all").default(false) });
    expect(parseInput(schema, queryObject(new URLSearchParams("all=true")), "query")).toEqual({ all: true });
    expect(parseInput(schema, queryObject(new URLSearchParams("")), "query")).toEqual({ all: false });
    expect(refusal(() => parseInput(schema, queryObject(new URLSearchParams("all=yes")), "query"))).toMatchObject({ field: "all", message: "query.all: all must be true or false" });
    expect(refusal(() => parseInput(schema, queryObject(new URLSearchParams("all=true&all=false")), "query"))).toMatchObject({ field: "all" });
  });
});

import { describe, expect, it } from "vitest";
import { DomainError } from "../../errors";
import { parseInput, queryObject } from "../../http/input";
import { DEFAULT_PAGE_SIZE, encodeCursor, MAX_PAGE_SIZE } from "../../http/pagination";
import {
  effectExportQuerySchema,
  effectFiltersOf,
  effectListQuerySchema,
  parsePageQuery,
  runExportQuerySchema,
  runFiltersOf,
  runIdSchema,
  runListQuerySchema,
  searchString,
  viewQuery,
} from "./filters";

const RUN_ID = "0b7f3c1e-9d2a-4c4e-8f5b-1a2b3c4d5e6f";
const query = (search: string) => queryObject(new URLSearchParams(search));

/** The field a malformed query is refused for (parseInput's 400). */
function refusedField(schema: Parameters<typeof parseInput>[0], search: string): string | undefined {
  try {
    parseInput(schema, query(search), "query");
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe("invalid");
    return (error as DomainError).field;
  }
  throw new Error(`expected ${search} to be refused`);
}

describe("runListQuerySchema", () => {
  it("reads every filter, with the default page size", () => {
    const parsed = parseInput(
      runListQuerySchema,
      query("condition=snapshot&delay=25&role=single&label=failure&agreement=disagree&exposure=exposed&classification=completed"),
      "query",
    );
    expect(parsed).toEqual({
      condition: "snapshot",
      delay: 25,
      role: "single",
      label: "failure",
      agreement: "disagree",
      exposure: "exposed",
      classification: "completed",
      cursor: undefined,
      limit: DEFAULT_PAGE_SIZE,
    });
  });

  it("takes a select's empty 'any' as no filter", () => {
    const parsed = parseInput(
      runListQuerySchema,
      query("condition=&delay=&role=&label=&agreement=&exposure=&classification=&cursor=&limit="),
      "query",
    );
    expect(runFiltersOf(parsed)).toEqual({});
    expect(parsed.limit).toBe(DEFAULT_PAGE_SIZE);
  });

  it("refuses a malformed filter, naming it", () => {
    expect(refusedField(runListQuerySchema, "condition=snap")).toBe("condition");
    for (const delay of ["-1", "2.5", "25ms", " 25", "1e3", "9999999999"])
      expect(refusedField(runListQuerySchema, `delay=${encodeURIComponent(delay)}`), delay).toBe("delay");
    expect(refusedField(runListQuerySchema, "role=C")).toBe("role");
    expect(refusedField(runListQuerySchema, "label=pass")).toBe("label");
    expect(refusedField(runListQuerySchema, "agreement=yes")).toBe("agreement");
    expect(refusedField(runListQuerySchema, "exposure=true")).toBe("exposure");
    expect(refusedField(runListQuerySchema, "classification=ok")).toBe("classification");
    expect(refusedField(runListQuerySchema, "limit=0")).toBe("limit");
    expect(refusedField(runListQuerySchema, `limit=${MAX_PAGE_SIZE + 1}`)).toBe("limit");
  });

  it("refuses a repeated filter and an unknown one", () => {
    expect(refusedField(runListQuerySchema, "role=A&role=B")).toBe("role");
    expect(refusedField(runListQuerySchema, "colour=red")).toBe("colour");
  });

  it("reads back the cursors it hands out and refuses any other", () => {
    const cursor = encodeCursor(["snapshot", 1, 25, 2, "single", "banking/user_task_3"]);
    expect(parseInput(runListQuerySchema, query(`cursor=${cursor}`), "query").cursor).toEqual([
      "snapshot",
      1,
      25,
      2,
      "single",
      "banking/user_task_3",
    ]);
    const forged = [
      "not a cursor",
      "%%%",
      Buffer.from("{not json").toString("base64url"),
      encodeCursor(["snapshot", 1, 25, 2]),
      encodeCursor(["rm -rf", 1, 25, 2, "single"]),
      encodeCursor(["snapshot", "1", 25, 2, "single"]),
      encodeCursor(["snapshot", 1, 25, 2, "single", "banking/user_task_3", "extra"]),
      encodeCursor(["snapshot", 1, 25, 2, "single"]),
      "x".repeat(1_001),
    ];
    for (const raw of forged) expect(refusedField(runListQuerySchema, `cursor=${encodeURIComponent(raw)}`), raw).toBe("cursor");
  });
});

describe("effectListQuerySchema", () => {
  it("reads the filters and an effects cursor", () => {
    const cursor = encodeCursor([false, RUN_ID, 1001.125, RUN_ID]);
    const parsed = parseInput(
      effectListQuerySchema,
      query(`experiment=${RUN_ID}&terminal=unresolved&endpoint=pending&cursor=${cursor}&limit=10`),
      "query",
    );
    expect(parsed).toEqual({
      experiment: RUN_ID,
      terminal: "unresolved",
      endpoint: "pending",
      cursor: [false, RUN_ID, 1001.125, RUN_ID],
      limit: 10,
    });
  });

  it("refuses malformed filters and cursors, naming them", () => {
    expect(refusedField(effectListQuerySchema, "experiment=42")).toBe("experiment");
    expect(refusedField(effectListQuerySchema, "terminal=pending")).toBe("terminal");
    expect(refusedField(effectListQuerySchema, "endpoint=unresolved")).toBe("endpoint");
    expect(refusedField(effectListQuerySchema, `cursor=${encodeCursor(["snapshot", 1, 25, 2, "single"])}`)).toBe("cursor");
    expect(refusedField(effectListQuerySchema, `cursor=${encodeCursor([false, "x", 1, RUN_ID])}`)).toBe("cursor");
  });
});

describe("export queries", () => {
  it("need a format, csv or json", () => {
    expect(refusedField(runExportQuerySchema, "condition=snapshot")).toBe("format");
    expect(refusedField(runExportQuerySchema, "format=xlsx")).toBe("format");
    expect(refusedField(effectExportQuerySchema, "format=")).toBe("format");
    expect(parseInput(runExportQuerySchema, query("format=csv&delay=0"), "query")).toMatchObject({ format: "csv", delay: 0 });
  });

  it("take no cursor: an export is every matching row", () => {
    expect(refusedField(runExportQuerySchema, "format=csv&cursor=abc")).toBe("cursor");
    expect(refusedField(effectExportQuerySchema, "format=json&limit=5")).toBe("limit");
  });
});

describe("runIdSchema", () => {
  it("accepts a uuid and refuses anything else, naming id", () => {
    expect(parseInput(runIdSchema, { id: RUN_ID }, "path")).toEqual({ id: RUN_ID });
    expect(() => parseInput(runIdSchema, { id: "not-a-uuid" }, "path")).toThrow(/path\.id: id must be a run id/);
  });
});

describe("viewQuery", () => {
  it("reproduces a view: its query string parses back to the same filters", () => {
    const filters = runFiltersOf(parseInput(runListQuerySchema, query("condition=shared&delay=0&role=B&exposure=unexposed"), "query"));
    const search = viewQuery(filters, { cursor: "abc", limit: null });
    expect(search).toBe("?condition=shared&delay=0&role=B&exposure=unexposed&cursor=abc");
    const back = parseInput(runExportQuerySchema, query(viewQuery(filters, { format: "csv" }).slice(1)), "query");
    expect(runFiltersOf(back)).toEqual(filters);
  });

  it("is empty without filters, and carries effect filters the same way", () => {
    expect(viewQuery({})).toBe("");
    const filters = effectFiltersOf(parseInput(effectListQuerySchema, query(`terminal=completed&experiment=${RUN_ID}`), "query"));
    expect(viewQuery(filters)).toBe(`?experiment=${RUN_ID}&terminal=completed`);
  });
});

describe("pages", () => {
  it("parse their searchParams with the route's schema, and say what the API's 400 would", () => {
    expect(parsePageQuery(runListQuerySchema, { role: "B", limit: "10" })).toEqual({
      ok: true,
      query: expect.objectContaining({ role: "B", limit: 10 }),
    });
    expect(parsePageQuery(runListQuerySchema, { delay: "soon" })).toEqual({
      ok: false,
      message: "query.delay: delay must be a whole number",
    });
    expect(parsePageQuery(effectListQuerySchema, { terminal: ["completed", "failed"] })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^query\.terminal: /),
    });
    expect(parsePageQuery(effectListQuerySchema, { colour: "red" })).toEqual({ ok: false, message: "unknown field(s) in query: colour" });
  });

  it("give their query back as it came, for the sign-in redirect", () => {
    expect(searchString({})).toBe("");
    expect(searchString({ role: "B", delay: ["0", "25"], gone: undefined, q: "a b&c" })).toBe("?role=B&delay=0&delay=25&q=a+b%26c");
  });
});

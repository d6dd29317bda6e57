import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DomainError } from "../errors";
import {
  isJsonMediaType,
  jsonNestingDepth,
  MAX_JSON_DEPTH,
  parseInput,
  parseJsonText,
  queryFlag,
  queryObject,
  readJsonBody,
} from "./input";

const refusal = (fn: () => unknown): DomainError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error;
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
    expect(error).toMatchObject({ kind: "invalid", code: "too_deep" });
    expect(error.message).toContain(`${MAX_JSON_DEPTH}`);
  });
  it("accepts a body at the limit exactly, and an empty body as {}", () => {
    expect(parseJsonText(`${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)}`)).toBeInstanceOf(Array);
    expect(parseJsonText("")).toEqual({});
  });
  it("calls malformed JSON malformed", () => {
    expect(refusal(() => parseJsonText("{not json"))).toMatchObject({ kind: "invalid", code: "malformed_json" });
  });
});

/** A body streamed in `chunks` pieces of `chunkBytes` (chunked: no content-length), counting the pieces pulled. */
function streamedBody(
  chunks: number,
  chunkBytes: number,
  piece = (k: number) => new Uint8Array(chunkBytes).fill(k === 0 ? 0x5b /* [ */ : 0x20),
) {
  const counter = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (counter.pulled === chunks) return controller.close();
        controller.enqueue(piece(counter.pulled++));
      },
      cancel() {
        counter.cancelled = true;
      },
    },
    { highWaterMark: 0 }, // pulled only when read: the count is what the reader asked for
  );
  return { body, counter };
}

const post = (body: BodyInit | null, headers: Record<string, string> = { "content-type": "application/json" }) =>
  new Request("http://localhost/api/v1/x", { method: "POST", body, headers, duplex: "half" } as RequestInit);

async function refusalOf(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (error instanceof DomainError) return error;
  throw new Error(`expected a refusal, got ${String(error)}`);
}

describe("readJsonBody", () => {
  it("stops reading a chunked body as soon as it passes the limit, leaves the rest to the edge, and answers 413 naming the limit", async () => {
    // 60 MB in 64 KB chunks, no content-length: the fifth chunk passes 256 KB, and nothing after it is pulled.
    const { body, counter } = streamedBody(960, 64 * 1024);
    const error = await refusalOf(readJsonBody(post(body), 256 * 1024));
    expect(error).toMatchObject({ kind: "too_large", code: "body_too_large", message: "body exceeds 262144 bytes (the limit)" });
    expect(counter.pulled).toBe(5);
    // Not cancelled: that destroyed the connection under the client; the web server's edge drops the rest (drained-requests.ts).
    expect(counter.cancelled).toBe(false);
  });

  it("reads a chunked body up to the limit exactly, across chunks, as JSON", async () => {
    const text = `{"name": "caf\u00e9 ${"é".repeat(100)}"}`;
    const bytes = new TextEncoder().encode(text);
    // Split inside a two-byte character: the decoder carries it over to the next chunk.
    const split = bytes.indexOf(0xc3) + 1;
    const { body } = streamedBody(2, 0, (k) => (k === 0 ? bytes.subarray(0, split) : bytes.subarray(split)));
    expect(await readJsonBody(post(body), bytes.length)).toEqual(JSON.parse(text));
    const { body: over } = streamedBody(2, 0, (k) => (k === 0 ? bytes.subarray(0, split) : bytes.subarray(split)));
    expect(await refusalOf(readJsonBody(post(over), bytes.length - 1))).toMatchObject({ kind: "too_large" });
  });

  it("refuses a body that is not UTF-8 rather than replace its bytes; drops a byte-order mark", async () => {
    const invalid = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]); // {"a":"\xff\xfe"}
    expect(await refusalOf(readJsonBody(post(invalid)))).toMatchObject({
      kind: "invalid",
      code: "malformed_json",
      message: "body is not valid UTF-8 (JSON is sent as UTF-8)",
    });
    const truncatedCharacter = new TextEncoder().encode('{"a":"é"}').subarray(0, 7); // ends inside é
    expect(await refusalOf(readJsonBody(post(truncatedCharacter)))).toMatchObject({ kind: "invalid", code: "malformed_json" });
    expect(await readJsonBody(post(`\ufeff{"a":"é"}`))).toEqual({ a: "é" });
  });

  it("refuses a declared length over the limit before reading anything", async () => {
    const { body, counter } = streamedBody(1, 10);
    const request = post(body, { "content-type": "application/json", "content-length": String(300 * 1024) });
    expect(await refusalOf(readJsonBody(request, 256 * 1024))).toMatchObject({ kind: "too_large", code: "body_too_large" });
    expect(counter.pulled).toBe(0);
  });

  it("refuses a non-empty body that is not JSON with 415 naming the type expected, at its first bytes", async () => {
    for (const type of [
      "text/plain;charset=UTF-8",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/jsonp",
    ]) {
      const error = await refusalOf(readJsonBody(post('{"a": 1}', { "content-type": type })));
      expect(error).toMatchObject({ kind: "unsupported_media_type", code: "unsupported_media_type" });
      expect(error.message).toContain("application/json");
      expect(error.message).toContain(type);
    }
    const { body, counter } = streamedBody(960, 64 * 1024);
    expect(await refusalOf(readJsonBody(post(body, {})))).toMatchObject({
      kind: "unsupported_media_type",
      message: "send the body as application/json (content-type missing)",
    });
    expect(counter.pulled).toBe(1);
    expect(counter.cancelled).toBe(false);
  });

  it("accepts JSON types with parameters and +json types; an empty body is {} whatever its type", async () => {
    expect(await readJsonBody(post('{"a": 1}', { "content-type": "application/json; charset=utf-8" }))).toEqual({ a: 1 });
    expect(await readJsonBody(post('{"a": 1}', { "content-type": "Application/Merge-Patch+JSON" }))).toEqual({ a: 1 });
    expect(await readJsonBody(post(null, {}))).toEqual({});
    expect(await readJsonBody(post("", { "content-type": "text/plain" }))).toEqual({});
    expect(await readJsonBody(post(streamedBody(0, 0).body, { "content-type": "application/octet-stream" }))).toEqual({});
  });

  it("tells JSON media types from the others", () => {
    expect(
      [
        null,
        "",
        "application/json",
        "application/json;charset=utf-8",
        "application/vnd.api+json",
        "text/json",
        "application/json+x",
        "application/x+y/json",
      ].map(isJsonMediaType),
    ).toEqual([false, false, true, true, true, false, false, false]);
  });

  it("keeps JSON.parse's refusals: malformed and too deep are 400s", async () => {
    expect(await refusalOf(readJsonBody(post("{not json")))).toMatchObject({ kind: "invalid", code: "malformed_json" });
    expect(await refusalOf(readJsonBody(post("[".repeat(100))))).toMatchObject({ kind: "invalid", code: "too_deep" });
  });
});

describe("parseInput and queries", () => {
  it("names the field at fault", () => {
    expect(refusal(() => parseInput(z.strictObject({ n: z.number("n must be a number") }), { n: "x" }, "body"))).toMatchObject({
      kind: "invalid",
      field: "n",
      message: "body.n: n must be a number",
    });
    expect(refusal(() => parseInput(z.strictObject({}), { extra: 1 }, "query"))).toMatchObject({
      field: "extra",
      message: "unknown field(s) in query: extra",
    });
    const nested = z.strictObject({ tools: z.record(z.string(), z.strictObject({ class: z.string() })) });
    expect(refusal(() => parseInput(nested, { tools: { read_file: { class: "read_only", colour: "red" } } }, "body"))).toMatchObject({
      field: "tools.read_file.colour",
      message: "unknown field(s) in body: tools.read_file.colour",
    });
  });
  it("reads ?all=true strictly", () => {
    const schema = z.strictObject({ all: queryFlag("all").default(false) });
    expect(parseInput(schema, queryObject(new URLSearchParams("all=true")), "query")).toEqual({ all: true });
    expect(parseInput(schema, queryObject(new URLSearchParams("")), "query")).toEqual({ all: false });
    expect(refusal(() => parseInput(schema, queryObject(new URLSearchParams("all=yes")), "query"))).toMatchObject({
      field: "all",
      message: "query.all: all must be true or false",
    });
    expect(refusal(() => parseInput(schema, queryObject(new URLSearchParams("all=true&all=false")), "query"))).toMatchObject({
      field: "all",
    });
  });
});

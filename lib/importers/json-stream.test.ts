import { describe, expect, it } from "vitest";
import { SkippedLog } from "./imported-log";
import { jsonObjectStream } from "./json-stream";

/** The document fed in chunks of `size` bytes: its fields and its samples as the stream reads them. */
function read(text: string | Buffer, size: number, maxValueBytes = 1_000_000) {
  const fields: Record<string, unknown> = {};
  const samples: unknown[] = [];
  const stream = jsonObjectStream({
    arrayField: "samples",
    onField: (key, value) => (fields[key] = value),
    onElement: (value) => samples.push(value),
    maxValueBytes,
  });
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) stream.feed(bytes.subarray(i, i + size));
  stream.end();
  return { fields, samples };
}

const DOCUMENT = {
  version: 2,
  status: "success",
  'odd "key" é': [1, { a: '}]\\"{[' }, null, true, -1.5e3],
  eval: { task: "t", nested: { deep: ["x", "ü ✓ 🎉"] } },
  samples: [{ id: 1, epoch: 1, text: 'a , } ] \\ " b' }, { id: "two", epoch: 2 }, 3, "s", null],
  empty: {},
  list: [],
  last: false,
};

describe("a JSON object read as it streams", () => {
  it.each([1, 2, 3, 7, 64, 100_000])("gives what JSON.parse gives, in chunks of %i bytes", (size) => {
    const { samples: expected, ...rest } = DOCUMENT;
    const { fields, samples } = read(`\ufeff ${JSON.stringify(DOCUMENT, null, size % 2 ? 2 : 0)}\n`, size);
    expect(fields).toEqual(rest);
    expect(samples).toEqual(expected);
  });

  it("an empty object and an empty samples array", () => {
    expect(read("{}", 1)).toEqual({ fields: {}, samples: [] });
    expect(read('{"samples": [ ] }', 1)).toEqual({ fields: {}, samples: [] });
  });

  it.each([
    [
      "truncated inside a field",
      '{"version": 2, "eval": {"task": "t"',
      /ends at byte 35 in the middle of its JSON \(inside the field eval\): is it truncated/,
    ],
    ["truncated inside a sample", '{"samples": [{"id": 1}, {"id"', /inside an element of samples/],
    ["truncated after a field", '{"version": 2', /in the middle of its JSON/],
    ["empty", "", /it is empty/],
    ["binary junk", Buffer.from([0x00, 0xff, 0x13, 0x37]), /at byte 0: a log is a JSON object/],
    ["an array", "[1, 2]", /a log is a JSON object/],
    ["a bad value", '{"version": tru}', /the field version/],
    ["a missing comma", '{"a": 1 "b": 2}', /expected , or } after the field a/],
    ["content after the end", '{"a": 1} {"b": 2}', /more content after the end/],
  ])("%s: refused with where and why", (_name, text, reason) => {
    expect(() => read(text, 3)).toThrow(SkippedLog);
    expect(() => read(text, 3)).toThrow(reason);
  });

  it("a value larger than the cap is refused, naming it", () => {
    expect(() => read(JSON.stringify({ version: 2, samples: [{ id: 1, text: "x".repeat(500) }] }), 16, 100)).toThrow(
      /an element of samples is larger than/,
    );
    expect(() => read(JSON.stringify({ messages: ["x".repeat(500)] }), 16, 100)).toThrow(/the field messages is larger than/);
  });
});

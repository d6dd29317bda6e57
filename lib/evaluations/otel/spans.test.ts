import { describe, expect, it } from "vitest";
import { spansOfRequest } from "./spans";

// OTLP/JSON requests read into plain spans: ids, times and every AnyValue kind; a malformed one refused naming its field.
const span = (attributes: unknown[]) => ({
  resourceSpans: [
    {
      resource: { attributes: [{ key: "service.name", value: { stringValue: "svc" } }] },
      scopeSpans: [
        {
          spans: [
            {
              traceId: "5B8EFFF798038103D269B633813FC60C",
              spanId: "EEE19B7EC3C1B174",
              parentSpanId: "",
              name: "s",
              startTimeUnixNano: "1764842400123456789",
              endTimeUnixNano: 1764842400200000000,
              attributes,
              status: { code: "STATUS_CODE_ERROR", message: "boom" },
            },
          ],
        },
      ],
    },
  ],
});

describe("spansOfRequest", () => {
  it("reads ids in lower case, times in milliseconds, the status, and every AnyValue kind", () => {
    const [resource] = spansOfRequest(
      span([
        { key: "s", value: { stringValue: "x" } },
        { key: "b", value: { boolValue: true } },
        { key: "i", value: { intValue: "42" } },
        { key: "d", value: { doubleValue: 0.5 } },
        { key: "a", value: { arrayValue: { values: [{ intValue: 1 }, { stringValue: "two" }] } } },
        { key: "k", value: { kvlistValue: { values: [{ key: "inner", value: { boolValue: false } }] } } },
        { key: "empty", value: {} },
      ]),
    );
    expect(resource!.resource).toEqual({ "service.name": "svc" });
    expect(resource!.spans[0]).toEqual({
      traceId: "5b8efff798038103d269b633813fc60c",
      spanId: "eee19b7ec3c1b174",
      parentSpanId: null,
      name: "s",
      startMs: 1764842400123,
      endMs: 1764842400200,
      attributes: { s: "x", b: true, i: 42, d: 0.5, a: [1, "two"], k: { inner: false }, empty: null },
      events: [],
      statusCode: 2,
      statusMessage: "boom",
    });
  });

  it("refuses a value that is not an AnyValue, and a span id of the wrong length, naming the field", () => {
    expect(() => spansOfRequest(span([{ key: "n", value: { intValue: "4.5" } }]))).toThrow(
      "resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value: must be an OTLP AnyValue (stringValue, intValue, …)",
    );
    expect(() => spansOfRequest(span([{ key: "a", value: { arrayValue: { values: [{ boolValue: "yes" }] } } }]))).toThrow(
      /attributes\[0\]\.value/,
    );
    const badId = span([]);
    badId.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.spanId = "abc";
    expect(() => spansOfRequest(badId)).toThrow("resourceSpans[0].scopeSpans[0].spans[0].spanId: spanId must be 8 bytes (16 hex digits)");
  });
});

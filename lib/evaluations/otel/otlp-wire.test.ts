import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { encodeTraceRequest, resourceSpansOf } from "./otlp-wire";
import { OTLP_REQUEST_LIMITS, refuseOverLimits, spansOfRequest, type OtlpSpan } from "./spans";

// The protobuf reader reads the decoded message straight into plain spans: it must read every request
// exactly as the OTLP/JSON reader reads the same request, and refuse what it refuses, naming the field.
const fixture = JSON.parse(readFileSync("lib/testing/otlp/genai-trace.json", "utf8")) as Record<string, unknown>;
const protobuf = (request: Record<string, unknown>) => Buffer.from(encodeTraceRequest(request));

/** One span with every AnyValue kind, a parent, an event and an error status. */
const everyKind = {
  resourceSpans: [
    {
      resource: {
        attributes: [
          { key: "service.name", value: { stringValue: "svc" } },
          { key: "n", value: { intValue: "7" } },
        ],
      },
      scopeSpans: [
        {
          spans: [
            {
              traceId: "5b8efff798038103d269b633813fc60c",
              spanId: "eee19b7ec3c1b174",
              parentSpanId: "eee19b7ec3c1b173",
              name: "s",
              startTimeUnixNano: "1764842400123456789",
              endTimeUnixNano: "1764842400200000000",
              attributes: [
                { key: "s", value: { stringValue: "x" } },
                { key: "empty-string", value: { stringValue: "" } },
                { key: "b", value: { boolValue: false } },
                { key: "i", value: { intValue: "-42" } },
                { key: "d", value: { doubleValue: 0.5 } },
                { key: "bytes", value: { bytesValue: Buffer.from("hi").toString("base64") } },
                { key: "a", value: { arrayValue: { values: [{ intValue: "1" }, { stringValue: "two" }] } } },
                { key: "k", value: { kvlistValue: { values: [{ key: "inner", value: { boolValue: true } }] } } },
                { key: "unset", value: {} },
              ],
              events: [{ timeUnixNano: "1764842400150000000", name: "e", attributes: [{ key: "x", value: { doubleValue: 2 } }] }],
              status: { code: 2, message: "boom" },
            },
            {
              traceId: "5b8efff798038103d269b633813fc60c",
              spanId: "eee19b7ec3c1b175",
              name: "",
              startTimeUnixNano: "0",
              endTimeUnixNano: "1",
            },
          ],
        },
      ],
    },
  ],
};

describe("resourceSpansOf", () => {
  it("reads a protobuf request exactly as the OTLP/JSON reader reads the same request", () => {
    for (const request of [fixture, everyKind]) {
      const asJson = spansOfRequest(request);
      expect(resourceSpansOf(protobuf(request), "protobuf", null)).toEqual(asJson);
      expect(resourceSpansOf(Buffer.from(JSON.stringify(request)), "json", null)).toEqual(asJson);
      expect(resourceSpansOf(gzipSync(protobuf(request)), "protobuf", "gzip")).toEqual(asJson);
    }
    const [span] = resourceSpansOf(protobuf(everyKind), "protobuf", null)[0]!.spans;
    expect(span).toMatchObject({
      parentSpanId: "eee19b7ec3c1b173",
      startMs: 1764842400123,
      attributes: { s: "x", "empty-string": "", b: false, i: -42, d: 0.5, bytes: "aGk=", a: [1, "two"], k: { inner: true }, unset: null },
      statusCode: 2,
      statusMessage: "boom",
    });
  });

  it("refuses missing, short and all-zero ids, a parent of the wrong length and an unknown status code, naming the field", () => {
    const withSpan = (changes: Record<string, unknown>) => {
      const request = structuredClone(everyKind);
      Object.assign(request.resourceSpans[0]!.scopeSpans[0]!.spans[1]!, changes);
      return request;
    };
    const at = "resourceSpans[0].scopeSpans[0].spans[1]";
    const cases: [Record<string, unknown>, string][] = [
      [{ traceId: undefined }, `${at}.traceId: traceId is required`],
      [{ spanId: "eee19b7ec3c1" }, `${at}.spanId: spanId must be 8 bytes (16 hex digits)`],
      [{ traceId: "0".repeat(32) }, `${at}.traceId: traceId must not be all zeros`],
      [{ parentSpanId: "eee19b7e" }, `${at}.parentSpanId: parentSpanId must be empty or 8 bytes (16 hex digits)`],
    ];
    for (const [changes, message] of cases) {
      expect(() => resourceSpansOf(protobuf(withSpan(changes)), "protobuf", null)).toThrow(message);
      expect(() => spansOfRequest(withSpan(changes))).toThrow(message);
    }
    expect(() => resourceSpansOf(protobuf(withSpan({ status: { code: 5 } })), "protobuf", null)).toThrow(
      `${at}.status.code: must be 0, 1 or 2 (STATUS_CODE_UNSET, STATUS_CODE_OK, STATUS_CODE_ERROR), not 5`,
    );
    expect(() => resourceSpansOf(Buffer.from("not protobuf at all"), "protobuf", null)).toThrow(
      /not an OTLP ExportTraceServiceRequest in protobuf/,
    );
  });

  it("refuses a span's or an event's time past year 9999, naming the field, in both readers", () => {
    const at = "resourceSpans[0].scopeSpans[0].spans[1]";
    const withTimes = (span: Record<string, unknown>) => {
      const request = structuredClone(everyKind);
      Object.assign(request.resourceSpans[0]!.scopeSpans[0]!.spans[1]!, span);
      return request;
    };
    const cases: [Record<string, unknown>, string][] = [
      [{ startTimeUnixNano: "10000000000000000000000" }, `${at}.startTimeUnixNano`],
      [{ startTimeUnixNano: 1e22 }, `${at}.startTimeUnixNano`],
      [{ endTimeUnixNano: "253402300800000000000" }, `${at}.endTimeUnixNano`], // 10000-01-01
      [{ events: [{ timeUnixNano: "10000000000000000000000000", name: "gen_ai.evaluation.result" }] }, `${at}.events[0].timeUnixNano`],
    ];
    for (const [span, field] of cases) {
      const request = withTimes(span);
      for (const read of [() => spansOfRequest(request), () => resourceSpansOf(Buffer.from(JSON.stringify(request)), "json", null)])
        expect(read).toThrow(
          expect.objectContaining({
            kind: "invalid",
            field,
            message: `${field}: must be a time between 0001-01-01 and 9999-12-31 (in UTC), in nanoseconds since the epoch`,
          }),
        );
    }
    // The last instant PostgreSQL stores is taken.
    const last = spansOfRequest(withTimes({ endTimeUnixNano: "253402300799999000000" }))[0]!.spans[1]!;
    expect(new Date(last.endMs).toISOString()).toBe("9999-12-31T23:59:59.999Z");
  });

  it("refuses a request over a limit of OTLP_REQUEST_LIMITS with 413 naming it", () => {
    const span: OtlpSpan = {
      traceId: "5b8efff798038103d269b633813fc60c",
      spanId: "eee19b7ec3c1b174",
      parentSpanId: null,
      name: "",
      startMs: 0,
      endMs: 0,
      attributes: { "gen_ai.operation.name": "execute_tool" },
      events: [],
      statusCode: 0,
    };
    const request = (spans: OtlpSpan[], resource = {}) => [{ resource, spans }];
    const { spans, events, attributeBytes } = OTLP_REQUEST_LIMITS;
    expect(() => refuseOverLimits(request(Array<OtlpSpan>(spans).fill(span)))).not.toThrow();
    expect(() => refuseOverLimits(request(Array<OtlpSpan>(spans + 1).fill(span)))).toThrow(
      expect.objectContaining({
        kind: "too_large",
        code: "too_many_spans",
        message: expect.stringContaining(`at most ${spans} a request`),
      }),
    );
    const event = { name: "boundary_lab.touch", atMs: 0, attributes: {} };
    expect(() => refuseOverLimits(request([{ ...span, events: Array(events + 1).fill(event) }]))).toThrow(
      expect.objectContaining({
        kind: "too_large",
        code: "too_many_events",
        message: expect.stringContaining(`at most ${events} a request`),
      }),
    );
    // Keys and text as UTF-8 bytes, nested values included: "é" is two.
    const big = { k: [{ nested: "é".repeat(attributeBytes / 2) }] };
    expect(() => refuseOverLimits(request([span], big))).toThrow(
      expect.objectContaining({
        kind: "too_large",
        code: "attributes_too_large",
        message: expect.stringContaining(`at most ${attributeBytes}`),
      }),
    );
  });
});

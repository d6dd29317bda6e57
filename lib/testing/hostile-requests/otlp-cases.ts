// Hostile requests to the OTLP receiver (POST /api/otel/v1/traces).
import { expect } from "vitest";
import { encodeTraceRequest } from "../../evaluations/otel/otlp-wire";
import { OTLP_REQUEST_LIMITS } from "../../evaluations/otel/spans";
import { str, OTLP_TRACE, toolSpan, otlpJson, labelMapAttribute, partialSuccess, liveRunOf, otlpError, type HostileCase } from "./requests";

/** POST /api/otel/v1/traces. */
export const otlpCases: HostileCase[] = [
  {
    name: "OTLP: a span starting past year 9999",
    request: (t) => otlpJson(t, [toolSpan(0, { startTimeUnixNano: "10000000000000000000000" })]),
    answer: otlpError(400, 3, "startTimeUnixNano"),
  },
  {
    name: "OTLP: an evaluation result at 10^25 ns",
    request: (t) =>
      otlpJson(t, [
        toolSpan(0, {
          events: [
            {
              name: "gen_ai.evaluation.result",
              timeUnixNano: "10000000000000000000000000",
              attributes: [str("gen_ai.evaluation.score.label", "success")],
            },
          ],
        }),
      ]),
    answer: otlpError(400, 3, "events[0].timeUnixNano"),
  },
  {
    name: `OTLP: ${OTLP_REQUEST_LIMITS.spans + 1} spans in protobuf`,
    request: (t) => ({
      method: "POST",
      path: "/api/otel/v1/traces",
      bytes: {
        contentType: "application/x-protobuf",
        body: encodeTraceRequest({
          resourceSpans: [
            {
              resource: { attributes: [str("boundary_lab.evaluation", t.evaluationId)] },
              scopeSpans: [{ spans: Array.from({ length: OTLP_REQUEST_LIMITS.spans + 1 }, (_, n) => toolSpan(n)) }],
            },
          ],
        }),
      },
    }),
    answer: { status: 413, contentType: "application/x-protobuf" },
  },
  {
    name: "OTLP: a label map that is not JSON",
    request: (t) => otlpJson(t, [toolSpan(0)], labelMapAttribute("relevant=success")),
    answer: partialSuccess("boundary_lab.label_map"),
  },
  {
    name: "OTLP: a label map that is an array",
    request: (t) => otlpJson(t, [toolSpan(0)], labelMapAttribute('["success"]')),
    answer: partialSuccess("boundary_lab.label_map"),
  },
  {
    name: "OTLP: a label map reading a label as neither",
    request: (t) => otlpJson(t, [toolSpan(0)], labelMapAttribute('{"relevant":"maybe"}')),
    answer: partialSuccess("boundary_lab.label_map"),
  },
  {
    name: "OTLP: a label map of 101 labels",
    request: (t) =>
      otlpJson(
        t,
        [toolSpan(0)],
        labelMapAttribute(JSON.stringify(Object.fromEntries(Array.from({ length: 101 }, (_, n) => [`l${n}`, "success"])))),
      ),
    answer: partialSuccess("boundary_lab.label_map"),
  },
  {
    name: "OTLP: a label map as a number attribute",
    request: (t) => otlpJson(t, [toolSpan(0)], [{ key: "boundary_lab.label_map", value: { intValue: "7" } }]),
    answer: partialSuccess("boundary_lab.label_map"),
  },
  {
    name: "OTLP: a span id with NUL",
    request: (t) => otlpJson(t, [toolSpan(0, { spanId: "\u0000".repeat(16) })]),
    answer: otlpError(400, 3, "spanId"),
  },
  {
    name: "OTLP: a good label map and span are stored",
    request: (t) => otlpJson(t, [toolSpan(0)], labelMapAttribute('{"relevant":"success"}')),
    answer: { status: 200, body: {} },
    writes: true,
    after: async (t) => expect(await liveRunOf(t, t.evaluationId, OTLP_TRACE)).toEqual({ state: "open" }),
  },
  {
    name: "OTLP: 9 MiB of spans (past the 8 MiB limit), its whole body written first",
    request: (t) => ({ ...otlpJson(t, [toolSpan(1, { name: "n".repeat(9 * 1024 * 1024) })]), client: "whole-body-first" }),
    answer: otlpError(413, 8, "bytes"),
  },
  {
    name: "OTLP: a body labelled text/plain",
    request: () => ({ method: "POST", path: "/api/otel/v1/traces", bytes: { contentType: "text/plain", body: Buffer.from("{}") } }),
    answer: otlpError(415, 3, "application/x-protobuf or application/json"),
  },
];

import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import type { EvaluationClient } from "@/lib/evaluations/client/api-client";
import { getEvaluationRun } from "@/lib/evaluations/read/evaluation-run";
import { encodeTraceRequest } from "@/lib/evaluations/otel/otlp-wire";
import { OTLP_REQUEST_LIMITS } from "@/lib/evaluations/otel/spans";
import { EVALUATION_NAME_MAX } from "@/lib/evaluations/vocabulary";
import type { TestDatabase } from "@/lib/testing/database";
import { evaluationIdOf, useOtlpRoutes } from "@/lib/testing/otlp-routes";

// OTLP in (docs/otel.md) over real HTTP into the route handler on a real PostgreSQL: evidence that
// arrives before its tool span, spans it cannot use, bad input, and what one request may hold.
let database: TestDatabase;
let key: string;
let api: { origin: string };
let lab: EvaluationClient;
useOtlpRoutes(
  async () => {
    const [otlp, evaluations] = await Promise.all([import("./route"), import("@/app/api/v1/evaluations/route")]);
    return [
      { path: /^\/api\/otel\/v1\/traces$/, methods: { POST: otlp.POST } },
      { path: /^\/api\/v1\/evaluations$/, methods: { POST: evaluations.POST } },
    ];
  },
  (served) => ({ database, key, api, lab } = served),
);
const tracesUrl = () => `${api.origin}/api/otel/v1/traces`;

describe("POST /api/otel/v1/traces: evidence out of order, unusable spans, bad input and the request's limits", () => {
  describe("evidence for an effect whose tool span has not arrived yet (exporters send children and siblings as they end)", () => {
    const EVIDENCE_FIRST = "otel evidence first";
    const str = (k: string, v: string) => ({ key: k, value: { stringValue: v } });
    const at = (ms: number) => `${BigInt(Date.parse("2026-12-05T12:00:00Z") + ms) * 1_000_000n}`;
    // Run n's trace: its agent span (scored at 900 ms), its transfer's tool span (10 to 20 ms, acknowledged pending) and a checker's
    // span carrying the transfer's evidence at `evidenceAtMs`.
    const spansOf = (n: number, evidenceAtMs: number) => {
      const traceId = `7c8efff798038103d269b633813fc6${String(n).padStart(2, "0")}`;
      const spanId = (k: number) => `bbb19b7ec3c1b${String(n).padStart(2, "0")}${k}`;
      const runId = `evidence-first-${n}`;
      const agent = {
        traceId,
        spanId: spanId(1),
        name: "invoke_agent banker",
        startTimeUnixNano: at(0),
        endTimeUnixNano: at(1_000),
        attributes: [str("gen_ai.operation.name", "invoke_agent"), str("boundary_lab.run.id", runId), str("boundary_lab.task.id", "pay")],
        events: [
          { name: "gen_ai.evaluation.result", timeUnixNano: at(900), attributes: [str("gen_ai.evaluation.score.label", "success")] },
        ],
      };
      const send = {
        traceId,
        spanId: spanId(2),
        parentSpanId: agent.spanId,
        name: "execute_tool send_money",
        startTimeUnixNano: at(10),
        endTimeUnixNano: at(20),
        attributes: [
          str("gen_ai.operation.name", "execute_tool"),
          str("gen_ai.tool.name", "send_money"),
          str("gen_ai.tool.call.id", `${runId}-pay`),
          str("boundary_lab.run.id", runId),
          str("boundary_lab.effect.status", "pending"),
          str("boundary_lab.effect.handle", `op-${runId}`),
        ],
      };
      const check = {
        traceId,
        spanId: spanId(3),
        parentSpanId: agent.spanId,
        name: "check transfer",
        startTimeUnixNano: at(evidenceAtMs - 5),
        endTimeUnixNano: at(evidenceAtMs + 5),
        attributes: [str("boundary_lab.run.id", runId)],
        events: [
          {
            name: "boundary_lab.effect.status",
            timeUnixNano: at(evidenceAtMs),
            attributes: [
              str("boundary_lab.effect.id", `${runId}-pay`),
              str("boundary_lab.effect.status", "completed"),
              str("boundary_lab.evidence", `ledger entry for ${runId}`),
            ],
          },
        ],
      };
      return { runId, agent, send, check };
    };
    const post = async (spans: object[]) => {
      const answer = await fetch(tracesUrl(), {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          resourceSpans: [{ resource: { attributes: [str("boundary_lab.evaluation", EVIDENCE_FIRST)] }, scopeSpans: [{ spans }] }],
        }),
      });
      expect(answer.status).toBe(200);
      return (await answer.json()) as { partialSuccess?: { rejectedSpans?: string | number; errorMessage?: string } };
    };
    const runOf = async (runId: string) => getEvaluationRun(database.db, await evaluationIdOf(database.db, EVIDENCE_FIRST), runId);
    const effectsOf = async (runId: string) =>
      (await runOf(runId))?.effects.map((e) => ({ effectId: e.effect_id, statusAtScoring: e.status_at_scoring, handle: e.handle }));

    beforeAll(async () => {
      await lab.createEvaluation({ name: EVIDENCE_FIRST, effectPolicy: { tools: { send_money: "async_handle" } } });
    });

    it("keeps evidence that came a request before its tool span, scored in that first request: resolved_after_scoring once the tool span comes", async () => {
      const { runId, agent, send, check } = spansOf(1, 2_000);
      expect(await post([agent, check])).toEqual({});
      expect(await post([send])).toEqual({});
      expect(await runOf(runId)).toMatchObject({
        finality: "unresolved",
        unresolvedReason: "resolved_after_scoring",
        endpointLabel: "success",
      });
      expect(await effectsOf(runId)).toEqual([{ effectId: `${runId}-pay`, statusAtScoring: "pending", handle: `op-${runId}` }]);
    });

    it("keeps evidence from before the score that came alone, first: the run is final once its tool span and score come", async () => {
      const { runId, agent, send, check } = spansOf(2, 500);
      expect(await post([check])).toEqual({});
      expect(await post([send, agent])).toEqual({});
      expect(await runOf(runId)).toMatchObject({ finality: "final", endpointLabel: "success" });
      expect(await effectsOf(runId)).toEqual([{ effectId: `${runId}-pay`, statusAtScoring: "completed", handle: `op-${runId}` }]);
    });

    it("takes the evidence span and the tool span in one request in either order", async () => {
      const late = spansOf(3, 2_000);
      expect(await post([late.check, late.agent, late.send])).toEqual({});
      expect(await runOf(late.runId)).toMatchObject({ finality: "unresolved", unresolvedReason: "resolved_after_scoring" });
      const early = spansOf(4, 500);
      expect(await post([early.send, early.check, early.agent])).toEqual({});
      expect(await runOf(early.runId)).toMatchObject({ finality: "final" });
    });

    it("drops kept evidence that its tool span shows timed before the request, naming its span in the later request's partialSuccess", async () => {
      const { runId, agent, send, check } = spansOf(5, 7);
      expect(await post([check])).toEqual({});
      const answer = await post([send, agent]);
      expect(answer.partialSuccess?.errorMessage).toContain(`span ${check.spanId}`);
      expect(answer.partialSuccess?.errorMessage).toContain("before the effect was requested");
      expect(Number(answer.partialSuccess?.rejectedSpans)).toBe(1);
      expect(await runOf(runId)).toMatchObject({ finality: "unresolved", unresolvedReason: "pending_at_scoring" });
      const statuses = await database.db.liveRunEvent.findMany({
        where: { liveRun: { externalId: runId }, type: "effect_status" },
        select: { eventId: true },
        orderBy: { id: "asc" },
      });
      expect(statuses.map((s) => s.eventId)).toEqual([`${send.spanId}.ended`]);
    });
  });

  it("counts the spans it cannot use in partialSuccess, naming the first reason, and stores the rest", async () => {
    const request = {
      resourceSpans: [
        {
          resource: {
            attributes: [
              { key: "boundary_lab.evaluation", value: { stringValue: "otlp partial" } },
              { key: "service.name", value: { stringValue: "partial-harness" } },
            ],
          },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: "6b8efff798038103d269b633813fc60c",
                  spanId: "1111111111111111",
                  name: "execute_tool",
                  startTimeUnixNano: "1764842400000000000",
                  endTimeUnixNano: "1764842400100000000",
                  attributes: [{ key: "gen_ai.operation.name", value: { stringValue: "execute_tool" } }],
                },
                {
                  traceId: "6b8efff798038103d269b633813fc60c",
                  spanId: "2222222222222222",
                  name: "execute_tool ping",
                  startTimeUnixNano: "1764842400000000000",
                  endTimeUnixNano: "1764842400100000000",
                  attributes: [
                    { key: "gen_ai.operation.name", value: { stringValue: "execute_tool" } },
                    { key: "gen_ai.tool.name", value: { stringValue: "ping" } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const answer = await fetch(tracesUrl(), {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/x-protobuf" },
      body: encodeTraceRequest(request),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/x-protobuf");
    // ExportTraceServiceResponse{partial_success{rejected_spans: 1, error_message}} in protobuf.
    const bytes = Buffer.from(await answer.arrayBuffer());
    expect(bytes.toString("latin1")).toContain("an execute_tool span needs gen_ai.tool.name (span 1111111111111111)");
    expect(bytes.subarray(0, 4)).toEqual(Buffer.from([0x0a, bytes[1]!, 0x08, 0x01]));
    // The evaluation was created on first use, named by the resource, its harness the service's name.
    const { id, harness } = await database.db.evaluation.findUniqueOrThrow({
      where: { name: "otlp partial" },
      select: { id: true, harness: true },
    });
    expect(harness).toBe("partial-harness");
    expect(await database.db.liveRun.findMany({ where: { evaluationId: id }, select: { externalId: true, state: true } })).toEqual([
      { externalId: "6b8efff798038103d269b633813fc60c", state: "open" },
    ]);
  });

  it("refuses bad input with a 4xx and OTLP's error body, storing nothing", async () => {
    const before = await database.db.liveRun.count();
    const send = (body: BodyInit, contentType: string, auth = `Bearer ${key}`) =>
      fetch(tracesUrl(), { method: "POST", headers: { authorization: auth, "content-type": contentType }, body });
    const garbage = await send(new TextEncoder().encode("this is not protobuf at all"), "application/x-protobuf");
    expect(garbage.status).toBe(400);
    expect(garbage.headers.get("content-type")).toBe("application/x-protobuf");
    expect(Buffer.from(await garbage.arrayBuffer()).toString("latin1")).toContain("not an OTLP ExportTraceServiceRequest in protobuf");
    const wrongType = await send("{}", "text/plain");
    expect(wrongType.status).toBe(415);
    expect(await wrongType.json()).toMatchObject({
      code: 3,
      message: expect.stringMatching(/application\/x-protobuf or application\/json/),
    });
    const huge = await send(new Uint8Array(20 * 1024 * 1024).fill(0x20), "application/json");
    expect(huge.status).toBe(413);
    const noTraceId = await send(
      JSON.stringify({
        resourceSpans: [{ scopeSpans: [{ spans: [{ spanId: "1111111111111111", startTimeUnixNano: "1", endTimeUnixNano: "2" }] }] }],
      }),
      "application/json",
    );
    expect(noTraceId.status).toBe(400);
    expect(await noTraceId.json()).toEqual({ code: 3, message: "resourceSpans[0].scopeSpans[0].spans[0].traceId: traceId is required" });
    const unknownEvaluation = await send(
      readFileSync("lib/testing/otlp/genai-trace.json", "utf8").replace("otlp json fixture", "00000000-0000-4000-8000-000000000000"),
      "application/json",
    );
    expect(unknownEvaluation.status).toBe(404);
    expect(await unknownEvaluation.json()).toMatchObject({
      code: 5,
      message: expect.stringMatching(/00000000-0000-4000-8000-000000000000/),
    });
    const noKey = await send("{}", "application/json", "Bearer nope");
    expect(noKey.status).toBe(401);
    expect(await database.db.liveRun.count()).toBe(before);
  });

  describe("at the edge of what one request may hold", () => {
    const str = (k: string, v: string) => ({ key: k, value: { stringValue: v } });
    const traceId = "7b8efff798038103d269b633813fc60c";
    const toolSpan = (n: number, extra: Record<string, unknown> = {}) => ({
      traceId,
      spanId: (n + 1).toString(16).padStart(16, "0"),
      startTimeUnixNano: "1764842400000000000",
      endTimeUnixNano: "1764842400100000000",
      attributes: [str("gen_ai.operation.name", "execute_tool"), str("gen_ai.tool.name", "ping")],
      ...extra,
    });
    const requestOf = (evaluation: string, spans: object[]) => ({
      resourceSpans: [{ resource: { attributes: [str("boundary_lab.evaluation", evaluation)] }, scopeSpans: [{ spans }] }],
    });
    const post = (request: object) =>
      fetch(tracesUrl(), {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "content-encoding": "gzip" },
        body: new Uint8Array(gzipSync(JSON.stringify(request))),
      });

    it("refuses a time past year 9999 with 400 naming the field, storing nothing", async () => {
      const before = await database.db.liveRun.count();
      const late = await post(requestOf("otlp late", [toolSpan(0, { startTimeUnixNano: "10000000000000000000000" })]));
      expect(late.status).toBe(400);
      expect(await late.json()).toEqual({
        code: 3,
        message:
          "resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano: must be a time between 0001-01-01 and 9999-12-31 (in UTC), in nanoseconds since the epoch",
      });
      const score = {
        timeUnixNano: "10000000000000000000000000",
        name: "gen_ai.evaluation.result",
        attributes: [str("gen_ai.evaluation.score.label", "success")],
      };
      const lateScore = await post(requestOf("otlp late", [toolSpan(0, { events: [score] })]));
      expect(lateScore.status).toBe(400);
      expect(await lateScore.json()).toMatchObject({
        code: 3,
        message: expect.stringMatching(/^resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.events\[0\]\.timeUnixNano: /),
      });
      expect(await database.db.liveRun.count()).toBe(before);
      expect(await database.db.evaluation.count({ where: { name: "otlp late" } })).toBe(0);
    });

    it("refuses an evaluation name longer than the API takes with 400 naming boundary_lab.evaluation, creating no evaluation", async () => {
      const evaluations = await database.db.evaluation.count();
      for (const length of [EVALUATION_NAME_MAX + 1, 300, 5_000]) {
        const answer = await post(requestOf("n".repeat(length), [toolSpan(0)]));
        expect(answer.status).toBe(400);
        expect(await answer.json()).toEqual({
          code: 3,
          message: `boundary_lab.evaluation: name must be at most ${EVALUATION_NAME_MAX} characters`,
        });
      }
      expect(await database.db.evaluation.count()).toBe(evaluations);
      // At the API's limit the name is taken.
      expect((await post(requestOf("n".repeat(EVALUATION_NAME_MAX), [toolSpan(0)]))).status).toBe(200);
    });

    it("refuses attributes over the request's limit with 413 naming it", async () => {
      const bulky = toolSpan(0, {
        attributes: [str("gen_ai.operation.name", "execute_tool"), str("blob", "x".repeat(OTLP_REQUEST_LIMITS.attributeBytes))],
      });
      const answer = await post(requestOf("otlp bulky", [bulky]));
      expect(answer.status).toBe(413);
      expect(await answer.json()).toMatchObject({
        code: 8,
        message: expect.stringContaining(`at most ${OTLP_REQUEST_LIMITS.attributeBytes} a request`),
      });
      expect(await database.db.evaluation.count({ where: { name: "otlp bulky" } })).toBe(0);
    });

    it(
      "answers 100,000 tool spans of one trace once they are stored: the run scored with the 1,000 effects a run holds, the rest counted rejected",
      { timeout: 180_000 },
      async () => {
        const spans = Array.from({ length: OTLP_REQUEST_LIMITS.spans }, (_, n) => toolSpan(n));
        spans[0] = toolSpan(0, {
          events: [
            {
              timeUnixNano: "1764842400200000000",
              name: "gen_ai.evaluation.result",
              attributes: [str("gen_ai.evaluation.score.label", "success")],
            },
          ],
        });
        const answer = await post(requestOf("otlp hundred thousand", spans));
        expect(answer.status).toBe(200);
        expect(await answer.json()).toEqual({
          partialSuccess: {
            rejectedSpans: String(OTLP_REQUEST_LIMITS.spans - 1_000),
            errorMessage: expect.stringContaining("at most 1000"),
          },
        });
        const id = await evaluationIdOf(database.db, "otlp hundred thousand");
        expect(await database.db.liveRun.findMany({ where: { evaluationId: id }, select: { externalId: true, state: true } })).toEqual([
          { externalId: traceId, state: "scored" },
        ]);
        expect((await getEvaluationRun(database.db, id, traceId))?.effects).toHaveLength(1_000);
      },
    );
  });
});

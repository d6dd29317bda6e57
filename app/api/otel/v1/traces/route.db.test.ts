import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { context, trace, type Tracer } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { NodeTracerProvider, SimpleSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-node";
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { DelayedWriteClient } from "@/lib/delayed-write/client";
import type { ServiceProcess } from "@/lib/delayed-write/spawn";
import { spawnDelayedWriteService } from "@/lib/delayed-write/spawn";
import { evaluationClient, type EvaluationClient } from "@/lib/evaluations/api-client";
import { getEvaluationRun } from "@/lib/evaluations/read/evaluation-run";
import { getLiveRun } from "@/lib/evaluations/read/live-runs";
import { runSpans } from "@/lib/evaluations/otel/run-spans";
import { encodeTraceRequest } from "@/lib/evaluations/otel/otlp-wire";
import { OTLP_REQUEST_LIMITS } from "@/lib/evaluations/otel/spans";
import { EVALUATION_NAME_MAX } from "@/lib/evaluations/vocabulary";
import type { TestDatabase } from "@/lib/testing/database";
import { routeTestDatabase } from "@/lib/testing/route-test-database";
import { serveRoutes } from "@/lib/testing/route-server";

// Issue 24: OTLP in, through OpenTelemetry's own SDK and exporters (protobuf and JSON) over real HTTP
// into the route handler on a real PostgreSQL. An agent loop whose transfer tool writes through the
// delayed-write service, the write still pending when the run is scored at the endpoint.
let database: TestDatabase;
let key: string;
let api: { origin: string; close(): Promise<void> };
let lab: EvaluationClient;
let service: ServiceProcess;
let bank: DelayedWriteClient;
const EVALUATION = "otel bank";

beforeAll(async () => {
  ({ database, key } = await routeTestDatabase(inject("embeddedAdminUrl"), "editor", "otel"));
  const [otlp, evaluations, evaluation, summary, suggestions] = await Promise.all([
    import("./route"),
    import("@/app/api/v1/evaluations/route"),
    import("@/app/api/v1/evaluations/[id]/route"),
    import("@/app/api/v1/evaluations/[id]/summary/route"),
    import("@/app/api/v1/evaluations/[id]/tool-suggestions/route"),
  ]);
  api = await serveRoutes([
    { path: /^\/api\/otel\/v1\/traces$/, methods: { POST: otlp.POST } },
    { path: /^\/api\/v1\/evaluations$/, methods: { POST: evaluations.POST } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)$/, methods: { PATCH: evaluation.PATCH } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/summary$/, methods: { GET: summary.GET } },
    { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/tool-suggestions$/, methods: { GET: suggestions.GET } },
  ]);
  lab = evaluationClient({ baseUrl: api.origin, apiKey: key });
  service = await spawnDelayedWriteService();
  bank = new DelayedWriteClient(service.url);
}, 120_000);
afterAll(async () => {
  await api?.close();
  await service?.stop();
  await database?.drop();
});

const tracesUrl = () => `${api.origin}/api/otel/v1/traces`;

function tracerProvider(exporter: SpanExporter, evaluation = EVALUATION) {
  return new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": "bank-agents", "boundary_lab.evaluation": evaluation }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
}

const evaluationIdOf = async (name: string) =>
  (await database.db.evaluation.findUniqueOrThrow({ where: { name }, select: { id: true } })).id;

/**
 * One agent run traced with the GenAI conventions: reads alice, sends 5 (acknowledged at once by the
 * delayed-write service, applied 1.5 s later), scored `success` at the endpoint; then the harness
 * follows the write and reports its completion in a later span of the same trace.
 */
async function tracedRun(tracer: Tracer, flush: () => Promise<void>, runId: string, namespace: string) {
  const root = tracer.startSpan("invoke_agent banker", {
    attributes: {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "banker",
      "boundary_lab.run.id": runId,
      "boundary_lab.task.id": "transfer",
    },
  });
  const inRun = trace.setSpan(context.active(), root);
  const read = tracer.startSpan(
    "execute_tool get_balance",
    { attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_balance", "gen_ai.tool.call.id": `${runId}-read` } },
    inRun,
  );
  await bank.read(namespace, "alice");
  read.addEvent("boundary_lab.touch", { "boundary_lab.surface": "bank://alice", "boundary_lab.op": "read" });
  read.end();
  const send = tracer.startSpan(
    "execute_tool send_money",
    { attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "send_money", "gen_ai.tool.call.id": `${runId}-send` } },
    inRun,
  );
  const write = await bank.write({ namespace, key: "alice", value: 95, delayMs: 1_500, mode: "async" });
  send.setAttributes({
    "boundary_lab.effect.status": "pending",
    "boundary_lab.effect.handle": write.operation.handle,
    "boundary_lab.effect.surface": "bank://alice",
  });
  send.end();
  root.addEvent("gen_ai.evaluation.result", { "gen_ai.evaluation.name": "transfer_done", "gen_ai.evaluation.score.label": "success" });
  root.end();
  await flush();
  const scored = await getEvaluationRun(database.db, await evaluationIdOf(EVALUATION), runId);
  // The write lands after scoring; the harness says so in a later span of the run's trace.
  const landed = await bank.operation(write.operation.handle, 10_000);
  const check = tracer.startSpan("check transfer", {}, inRun);
  check.addEvent("boundary_lab.effect.status", {
    "boundary_lab.effect.id": `${runId}-send`,
    "boundary_lab.effect.status": landed.operation.status,
    "boundary_lab.evidence": `operation ${write.operation.handle} ${landed.operation.status}`,
  });
  check.end();
  await flush();
  return { scored, after: await getEvaluationRun(database.db, await evaluationIdOf(EVALUATION), runId) };
}

describe("POST /api/otel/v1/traces with OpenTelemetry's exporters", () => {
  it("audits runs sent as protobuf and as JSON: a write pending at scoring is unresolved, later resolved_after_scoring; the two runs on one account one unit", async () => {
    await lab.createEvaluation({ name: EVALUATION, effectPolicy: { tools: { get_balance: "read_only", send_money: "async_handle" } } });
    const headers = { authorization: `Bearer ${key}` };
    const protobuf = tracerProvider(new ProtobufExporter({ url: tracesUrl(), headers }));
    const json = tracerProvider(new JsonExporter({ url: tracesUrl(), headers }));
    for (const [provider, run] of [
      [protobuf, "A"],
      [json, "B"],
    ] as const) {
      const { scored, after } = await tracedRun(provider.getTracer("bank-agent"), () => provider.forceFlush(), run, "otel-bank");
      expect(scored).toMatchObject({
        finality: "unresolved",
        unresolvedReason: "pending_at_scoring",
        endpointLabel: "success",
        taskId: "transfer",
      });
      expect(scored?.effects.find((e) => e.tool === "send_money")).toMatchObject({
        status_at_scoring: "pending",
        handle: expect.stringMatching(/.+/),
      });
      expect(after).toMatchObject({ finality: "unresolved", unresolvedReason: "resolved_after_scoring" });
    }
    await Promise.all([protobuf.shutdown(), json.shutdown()]);
    const evaluation = await database.db.evaluation.findUniqueOrThrow({ where: { name: EVALUATION }, select: { id: true } });
    // B read alice after A's write to her account, with no reset between: one unit.
    expect((await lab.summary(evaluation.id)).units).toMatchObject({ runRows: 2, analysisUnits: 1 });
    // The transfer's spans said pending with a handle: async_handle suggested, from the harness's service.
    expect((await lab.toolSuggestions(evaluation.id)).map((t) => [t.tool, t.suggestedClass, t.source])).toEqual([
      ["send_money", "async_handle", "otel:bank-agents"],
    ]);
    // Every span of A's trace is kept for its timeline, whichever request brought it.
    const spans = await database.db.liveRunSpan.findMany({ where: { liveRun: { externalId: "A" } }, select: { name: true } });
    expect(spans.map((s) => s.name).sort()).toEqual([
      "check transfer",
      "execute_tool get_balance",
      "execute_tool send_money",
      "invoke_agent banker",
    ]);
  }, 60_000);

  it("takes a raw OTLP/JSON request written from the conventions, gzip-compressed too, and adds nothing when the same spans come again", async () => {
    await lab.createEvaluation({
      name: "otlp json fixture",
      effectPolicy: { tools: { search_flights: "read_only", book_flight: "async_handle" } },
    });
    const fixture = readFileSync("lib/testing/otlp/genai-trace.json");
    const post = (body: Uint8Array<ArrayBuffer>, extra: Record<string, string> = {}) =>
      fetch(tracesUrl(), {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...extra },
        body,
      });
    const first = await post(new Uint8Array(fixture));
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({});
    const again = await post(new Uint8Array(gzipSync(fixture)), { "content-encoding": "gzip" });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({});
    const id = await evaluationIdOf("otlp json fixture");
    const run = await getEvaluationRun(database.db, id, "fixture-run-1");
    expect(run).toMatchObject({
      finality: "unresolved",
      unresolvedReason: "pending_at_scoring",
      unresolvedTool: "book_flight",
      taskId: "travel-agent",
    });
    expect(run?.effects.map((e) => [e.effect_id, e.tool, e.status_at_scoring, e.handle])).toEqual([
      ["call_search_1", "search_flights", "completed", null],
      ["call_book_1", "book_flight", "pending", "booking-op-42"],
    ]);
    expect((await getLiveRun(database.db, id, "fixture-run-1"))?.eventCount).toBe(5);
  });

  it("reads an evaluator's own labels by the evaluation's labelMap, and stores a result it cannot read unscored with the reason, never open", async () => {
    const { id } = await lab.createEvaluation({ name: "otlp labels", labelMap: { Relevant: "success" } });
    const str = (k: string, v: string) => ({ key: k, value: { stringValue: v } });
    const ns = (ms: number) => `${BigInt(Date.parse("2026-12-05T12:00:00Z") + ms) * 1_000_000n}`;
    const judged = (n: number, label: string) => ({
      traceId: `7b8efff798038103d269b633813fc6${String(n).padStart(2, "0")}`,
      spanId: `bbb19b7ec3c1b1${String(n).padStart(2, "0")}`,
      name: "invoke_agent judge",
      startTimeUnixNano: ns(0),
      endTimeUnixNano: ns(1_000),
      attributes: [
        str("gen_ai.operation.name", "invoke_agent"),
        str("boundary_lab.run.id", `judged-${n}`),
        str("boundary_lab.task.id", "answer"),
      ],
      events: [{ name: "gen_ai.evaluation.result", timeUnixNano: ns(900), attributes: [str("gen_ai.evaluation.score.label", label)] }],
    });
    const send = (spans: object[]) =>
      fetch(tracesUrl(), {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          resourceSpans: [{ resource: { attributes: [str("boundary_lab.evaluation", id)] }, scopeSpans: [{ spans }] }],
        }),
      });
    expect((await send([judged(1, "relevant"), judged(2, "meh")])).status).toBe(200);
    const runOf = (n: number) => getEvaluationRun(database.db, id, `judged-${n}`);
    expect(await runOf(1)).toMatchObject({ finality: "final", endpointLabel: "success" });
    expect(await runOf(2)).toMatchObject({
      finality: "unscored",
      unscoredReason: expect.stringMatching(/^gen_ai\.evaluation\.score\.label "meh" is in no labelMap/),
    });
    // The label map changed: later results read by it (a run seen before takes the live-run routes' way).
    const patched = await fetch(`${api.origin}/api/v1/evaluations/${id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ labelMap: { meh: "failure" } }),
    });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({ id, labelMap: { meh: "failure" } });
    const opened = { ...judged(3, "meh"), events: [] };
    expect((await send([opened])).status).toBe(200);
    expect((await getLiveRun(database.db, id, "judged-3"))?.state).toBe("open");
    expect((await send([{ ...judged(3, "meh"), spanId: "bbb19b7ec3c1b199" }])).status).toBe(200);
    expect(await runOf(3)).toMatchObject({ finality: "final", endpointLabel: "failure" });
    const refused = await fetch(`${api.origin}/api/v1/evaluations/${id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ labelMap: { meh: "maybe" } }),
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { field: "labelMap.meh" } });
  });

  it("keeps a trace's first request whole on its run, and moves it into rows when more of the trace arrives", async () => {
    const str = (k: string, v: string) => ({ key: k, value: { stringValue: v } });
    const traceId = "5b8efff798038103d269b633813fc60c";
    const at = (ms: number) => `${BigInt(Date.parse("2026-12-05T10:00:00Z") + ms) * 1_000_000n}`;
    const tool = (spanId: string, callId: string, surface: string, start: number) => ({
      traceId,
      spanId,
      parentSpanId: "eee19b7ec3c1b174",
      name: "execute_tool send_money",
      startTimeUnixNano: at(start),
      endTimeUnixNano: at(start + 10),
      attributes: [
        str("gen_ai.operation.name", "execute_tool"),
        str("gen_ai.tool.name", "send_money"),
        str("gen_ai.tool.call.id", callId),
        str("boundary_lab.effect.surface", surface),
      ],
    });
    const request = (spans: unknown[]) => ({
      resourceSpans: [{ resource: { attributes: [str("boundary_lab.evaluation", "otel first batch")] }, scopeSpans: [{ spans }] }],
    });
    const post = async (body: object) => {
      const answer = await fetch(tracesUrl(), {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({});
    };
    await post(request([tool("eee19b7ec3c1b175", "call-1", "bank://alice", 10), tool("eee19b7ec3c1b176", "call-2", "bank://bob", 30)]));
    const id = await evaluationIdOf("otel first batch");
    const stored = async () => {
      const run = await database.db.liveRun.findUniqueOrThrow({
        where: { evaluationId_externalId: { evaluationId: id, externalId: traceId } },
        select: { id: true, firstEvents: true, firstSpans: true, _count: { select: { events: true, spans: true } } },
      });
      const view = (await getLiveRun(database.db, id, traceId))!;
      return {
        firstEvents: run.firstEvents === null ? null : (JSON.parse(run.firstEvents) as unknown[]).length,
        firstSpans: run.firstSpans === null ? null : (JSON.parse(run.firstSpans) as unknown[]).length,
        eventRows: run._count.events,
        spanRows: run._count.spans,
        eventCount: view.eventCount,
        effects: (view.record.effects ?? []).map((e) => [e.effectId, e.statusAtScoring]),
        spans: (await runSpans(database.db, id, traceId)).map((span) => span.spanId),
      };
    };
    // One request: the run's 4 events (2 requested, 2 completed) and 2 spans kept whole, no rows.
    expect(await stored()).toEqual({
      firstEvents: 4,
      firstSpans: 2,
      eventRows: 0,
      spanRows: 0,
      eventCount: 4,
      effects: [
        ["call-1", "completed"],
        ["call-2", "completed"],
      ],
      spans: ["eee19b7ec3c1b175", "eee19b7ec3c1b176"],
    });
    // More of the trace (a third call, and the first span again): the first batch moves into rows, in order, and nothing is twice.
    await post(request([tool("eee19b7ec3c1b177", "call-3", "bank://carol", 50), tool("eee19b7ec3c1b175", "call-1", "bank://alice", 10)]));
    expect(await stored()).toEqual({
      firstEvents: null,
      firstSpans: null,
      eventRows: 6,
      spanRows: 3,
      eventCount: 6,
      effects: [
        ["call-1", "completed"],
        ["call-2", "completed"],
        ["call-3", "completed"],
      ],
      spans: ["eee19b7ec3c1b175", "eee19b7ec3c1b176", "eee19b7ec3c1b177"],
    });
    const events = await database.db.liveRunEvent.findMany({
      where: { liveRun: { evaluationId: id } },
      orderBy: { id: "asc" },
      select: { type: true, effectId: true },
    });
    expect(events.map((e) => `${e.type} ${e.effectId}`)).toEqual([
      "effect_requested call-1",
      "effect_status call-1",
      "effect_requested call-2",
      "effect_status call-2",
      "effect_requested call-3",
      "effect_status call-3",
    ]);
  });

  it("stores a run that two traces of one request name with the evidence of both (the later one's status after scoring counts)", async () => {
    await lab.createEvaluation({ name: "otel two traces", effectPolicy: { tools: { send_money: "async_handle" } } });
    const str = (k: string, v: string) => ({ key: k, value: { stringValue: v } });
    const at = (ms: number) => `${BigInt(Date.parse("2026-12-05T11:00:00Z") + ms) * 1_000_000n}`;
    const scored = {
      traceId: "6b8efff798038103d269b633813fc601",
      spanId: "aaa19b7ec3c1b101",
      name: "invoke_agent banker",
      startTimeUnixNano: at(0),
      endTimeUnixNano: at(1_000),
      attributes: [
        str("gen_ai.operation.name", "invoke_agent"),
        str("boundary_lab.run.id", "shared-run"),
        str("boundary_lab.task.id", "pay"),
      ],
      events: [{ name: "gen_ai.evaluation.result", timeUnixNano: at(900), attributes: [str("gen_ai.evaluation.score.label", "success")] }],
    };
    const send = {
      traceId: scored.traceId,
      spanId: "aaa19b7ec3c1b102",
      parentSpanId: scored.spanId,
      name: "execute_tool send_money",
      startTimeUnixNano: at(10),
      endTimeUnixNano: at(20),
      attributes: [
        str("gen_ai.operation.name", "execute_tool"),
        str("gen_ai.tool.name", "send_money"),
        str("gen_ai.tool.call.id", "pay-1"),
        str("boundary_lab.effect.status", "pending"),
        str("boundary_lab.effect.handle", "op-pay-1"),
      ],
    };
    // Another trace of the same run (its checker's), in the same request: the write completed after scoring.
    const check = {
      traceId: "6b8efff798038103d269b633813fc602",
      spanId: "aaa19b7ec3c1b103",
      name: "check transfer",
      startTimeUnixNano: at(2_000),
      endTimeUnixNano: at(2_100),
      attributes: [str("boundary_lab.run.id", "shared-run")],
      events: [
        {
          name: "boundary_lab.effect.status",
          timeUnixNano: at(2_050),
          attributes: [
            str("boundary_lab.effect.id", "pay-1"),
            str("boundary_lab.effect.status", "completed"),
            str("boundary_lab.evidence", "ledger entry 8812"),
          ],
        },
      ],
    };
    const answer = await fetch(tracesUrl(), {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/x-protobuf" },
      body: encodeTraceRequest({
        resourceSpans: [
          { resource: { attributes: [str("boundary_lab.evaluation", "otel two traces")] }, scopeSpans: [{ spans: [scored, send, check] }] },
        ],
      }),
    });
    expect(answer.status).toBe(200);
    const run = await getEvaluationRun(database.db, await evaluationIdOf("otel two traces"), "shared-run");
    expect(run).toMatchObject({ finality: "unresolved", unresolvedReason: "resolved_after_scoring", endpointLabel: "success" });
    expect(run?.effects.map((e) => [e.effect_id, e.status_at_scoring, e.handle])).toEqual([["pay-1", "pending", "op-pay-1"]]);
  });

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
    const runOf = async (runId: string) => getEvaluationRun(database.db, await evaluationIdOf(EVIDENCE_FIRST), runId);
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
        const id = await evaluationIdOf("otlp hundred thousand");
        expect(await database.db.liveRun.findMany({ where: { evaluationId: id }, select: { externalId: true, state: true } })).toEqual([
          { externalId: traceId, state: "scored" },
        ]);
        expect((await getEvaluationRun(database.db, id, traceId))?.effects).toHaveLength(1_000);
      },
    );
  });

  it("keeps GenAI chat spans as the run's model calls, a nested instrumentation of one call once, summed on the run and in the summary", async () => {
    const name = "otel model calls";
    const { id } = await lab.createEvaluation({ name });
    const nanos = (ms: number) => String(BigInt(Date.parse("2026-12-01T10:00:00.000Z") + ms) * 1_000_000n);
    const attribute = (key: string, value: string | number) => ({
      key,
      value: typeof value === "number" ? { intValue: value } : { stringValue: value },
    });
    const traceId = "5b8efff798038103d269b633813fc60c";
    const span = (spanId: string, name: string, fromMs: number, toMs: number, attributes: [string, string | number][], extra = {}) => ({
      traceId,
      spanId,
      name,
      startTimeUnixNano: nanos(fromMs),
      endTimeUnixNano: nanos(toMs),
      attributes: attributes.map(([key, value]) => attribute(key, value)),
      ...extra,
    });
    const request = (spans: unknown[]) => ({
      resourceSpans: [
        {
          resource: { attributes: [attribute("boundary_lab.evaluation", name), attribute("service.name", "chat-agent")] },
          scopeSpans: [{ spans }],
        },
      ],
    });
    const post = async (body: unknown) =>
      (
        await fetch(tracesUrl(), {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        })
      ).json();
    const agent: [string, string | number][] = [
      ["gen_ai.operation.name", "invoke_agent"],
      ["boundary_lab.run.id", "chat-1"],
    ];
    expect(
      await post(
        request([
          span("a000000000000001", "invoke_agent planner", 0, 9_000, agent, {
            events: [
              {
                timeUnixNano: nanos(8_500),
                name: "gen_ai.evaluation.result",
                attributes: [attribute("gen_ai.evaluation.score.label", "pass")],
              },
            ],
          }),
          span(
            "a000000000000002",
            "chat gpt-4o",
            100,
            1_600,
            [
              ["gen_ai.operation.name", "chat"],
              ["gen_ai.request.model", "gpt-4o"],
              ["gen_ai.response.model", "gpt-4o-2024-08-06"],
              ["gen_ai.usage.input_tokens", 1_200],
              ["gen_ai.usage.output_tokens", 40],
            ],
            { parentSpanId: "a000000000000001" },
          ),
          // A provider's own instrumentation of the same call, under it: not a second call.
          span(
            "a000000000000003",
            "chat gpt-4o",
            120,
            1_590,
            [
              ["gen_ai.operation.name", "chat"],
              ["gen_ai.request.model", "gpt-4o"],
              ["gen_ai.usage.input_tokens", 1_200],
              ["gen_ai.usage.output_tokens", 40],
            ],
            { parentSpanId: "a000000000000002" },
          ),
          span(
            "a000000000000004",
            "chat gpt-4o",
            2_000,
            2_500,
            [
              ["gen_ai.operation.name", "chat"],
              ["gen_ai.request.model", "gpt-4o"],
            ],
            { parentSpanId: "a000000000000001", status: { code: 2, message: "429 rate limited" } },
          ),
          span(
            "a000000000000005",
            "chat gpt-4o",
            3_000,
            4_250,
            [
              ["gen_ai.operation.name", "chat"],
              ["gen_ai.request.model", "gpt-4o"],
              ["gen_ai.usage.input_tokens", 1_300],
              ["gen_ai.usage.output_tokens", 12],
            ],
            { parentSpanId: "a000000000000001" },
          ),
          span(
            "a000000000000006",
            "chat gpt-4o",
            5_000,
            5_100,
            [
              ["gen_ai.operation.name", "chat"],
              ["gen_ai.usage.input_tokens", -4],
            ],
            { parentSpanId: "a000000000000001" },
          ),
        ]),
      ),
    ).toEqual({
      partialSuccess: {
        rejectedSpans: "1",
        errorMessage: "gen_ai.usage.input_tokens must be a whole number of tokens from 0 to 2147483647 (span a000000000000006)",
      },
    });
    const run = await getEvaluationRun(database.db, id, "chat-1");
    expect(run?.modelCalls).toEqual([
      {
        position: 0,
        model: "gpt-4o-2024-08-06",
        startedAt: "2026-12-01T10:00:00.100Z",
        durationMs: 1_500,
        inputTokens: 1_200,
        outputTokens: 40,
        error: null,
        messagePosition: null,
      },
      {
        position: 1,
        model: "gpt-4o",
        startedAt: "2026-12-01T10:00:02.000Z",
        durationMs: 500,
        inputTokens: null,
        outputTokens: null,
        error: "429 rate limited",
        messagePosition: null,
      },
      {
        position: 2,
        model: "gpt-4o",
        startedAt: "2026-12-01T10:00:03.000Z",
        durationMs: 1_250,
        inputTokens: 1_300,
        outputTokens: 12,
        error: null,
        messagePosition: null,
      },
    ]);
    expect(run).toMatchObject({ endpointLabel: "success", inputTokens: 2_500, outputTokens: 52, modelCallCount: 3 });
    const summary = await (
      await fetch(`${api.origin}/api/v1/evaluations/${id}/summary`, { headers: { authorization: `Bearer ${key}` } })
    ).json();
    expect(summary.tokens).toEqual({ input: 2_500, output: 52, runsWithTokens: 1, modelCalls: 3, runsWithModelCalls: 1, runs: 1 });
  });

  it("audits an agent built on the Vercel AI SDK (its mock model) whose tool's write is still pending when the run is scored", async () => {
    const name = "otel ai sdk";
    const { id } = await lab.createEvaluation({ name, effectPolicy: { tools: { send_money: "async_handle" } } });
    const provider = tracerProvider(new ProtobufExporter({ url: tracesUrl(), headers: { authorization: `Bearer ${key}` } }), name);
    provider.register(); // the AI SDK's spans nest under the harness's through the global context manager
    const tracer = provider.getTracer("ai-agent");
    const usage = {
      inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 5, text: 5, reasoning: undefined },
    };
    const model = new MockLanguageModelV3({
      doGenerate: [
        {
          content: [
            { type: "tool-call", toolCallId: "ai-call-1", toolName: "send_money", input: JSON.stringify({ to: "bob", amount: 5 }) },
          ],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        },
        { content: [{ type: "text", text: "Sent." }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] },
      ],
    });
    let handle = "";
    await tracer.startActiveSpan(
      "invoke_agent ai-sdk",
      { attributes: { "gen_ai.operation.name": "invoke_agent", "boundary_lab.task.id": "transfer" } },
      async (root) => {
        const result = await generateText({
          model,
          prompt: "Send bob 5",
          tools: {
            send_money: tool({
              inputSchema: z.object({ to: z.string(), amount: z.number() }),
              execute: async ({ to, amount }) => {
                const write = await bank.write({ namespace: "ai-bank", key: to, value: 100 + amount, delayMs: 1_500, mode: "async" });
                handle = write.operation.handle;
                // The tool says on its own span (the AI SDK's ai.toolCall) that the write is acknowledged, not applied.
                trace.getActiveSpan()?.setAttributes({
                  "boundary_lab.effect.status": "pending",
                  "boundary_lab.effect.handle": handle,
                  "boundary_lab.effect.surface": `bank://${to}`,
                });
                return { accepted: handle };
              },
            }),
          },
          stopWhen: stepCountIs(3),
          experimental_telemetry: { isEnabled: true, tracer, metadata: { "boundary_lab.run.id": "ai-1" } },
        });
        expect(result.text).toBe("Sent.");
        root.addEvent("gen_ai.evaluation.result", { "gen_ai.evaluation.score.label": "success" });
        root.end();
      },
    );
    await provider.forceFlush();
    const run = await getEvaluationRun(database.db, id, "ai-1");
    expect(run).toMatchObject({
      finality: "unresolved",
      unresolvedReason: "pending_at_scoring",
      unresolvedTool: "send_money",
      taskId: "transfer",
    });
    expect(run?.effects.map((e) => [e.effect_id, e.tool, e.status_at_scoring, e.handle])).toEqual([
      ["ai-call-1", "send_money", "pending", handle],
    ]);
    // Each step's ai.generateText.doGenerate span is a model call (the outer ai.generateText span, which sums them, is not).
    expect(run?.modelCalls.map((c) => [c.model, c.inputTokens, c.outputTokens, c.error])).toEqual([
      ["mock-model-id", 10, 5, null],
      ["mock-model-id", 10, 5, null],
    ]);
    expect(run?.modelCalls.every((c) => c.startedAt !== null && c.durationMs !== null && c.durationMs >= 0)).toBe(true);
    expect(run).toMatchObject({ inputTokens: 20, outputTokens: 10, modelCallCount: 2 });
    await provider.shutdown();
  }, 60_000);
});

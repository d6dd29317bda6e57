import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { context, trace, type Tracer } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { describe, expect, it } from "vitest";
import type { DelayedWriteClient } from "@/lib/delayed-write/delayed-write-client";
import type { EvaluationClient } from "@/lib/evaluations/client/api-client";
import { getEvaluationRun } from "@/lib/evaluations/read/evaluation-run";
import { getLiveRun } from "@/lib/evaluations/read/live-runs";
import { runSpans } from "@/lib/evaluations/read/run-spans";
import { encodeTraceRequest } from "@/lib/evaluations/otel/otlp-wire";
import type { TestDatabase } from "@/lib/testing/database";
import { evaluationIdOf, tracerProvider, useOtlpRoutes } from "@/lib/testing/otlp-routes";

// OTLP in (docs/otel.md), through OpenTelemetry's own SDK and exporters (protobuf and JSON) over real HTTP
// into the route handler on a real PostgreSQL. An agent loop whose transfer tool writes through the
// delayed-write service, the write still pending when the run is scored at the endpoint. The evidence that
// arrives out of order and the edges of a request: traces-edges.db.test.ts; model calls and the Vercel AI SDK:
// traces-model-calls.db.test.ts.
let database: TestDatabase;
let key: string;
let api: { origin: string };
let lab: EvaluationClient;
let bank: DelayedWriteClient;
useOtlpRoutes(
  async () => {
    const [otlp, evaluations, evaluation, summary, suggestions] = await Promise.all([
      import("./route"),
      import("@/app/api/v1/evaluations/route"),
      import("@/app/api/v1/evaluations/[id]/route"),
      import("@/app/api/v1/evaluations/[id]/summary/route"),
      import("@/app/api/v1/evaluations/[id]/tool-suggestions/route"),
    ]);
    return [
      { path: /^\/api\/otel\/v1\/traces$/, methods: { POST: otlp.POST } },
      { path: /^\/api\/v1\/evaluations$/, methods: { POST: evaluations.POST } },
      { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)$/, methods: { PATCH: evaluation.PATCH } },
      { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/summary$/, methods: { GET: summary.GET } },
      { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/tool-suggestions$/, methods: { GET: suggestions.GET } },
    ];
  },
  (served) => ({ database, key, api, lab, bank } = served),
);
const tracesUrl = () => `${api.origin}/api/otel/v1/traces`;
const EVALUATION = "otel bank";

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
  const scored = await getEvaluationRun(database.db, await evaluationIdOf(database.db, EVALUATION), runId);
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
  return { scored, after: await getEvaluationRun(database.db, await evaluationIdOf(database.db, EVALUATION), runId) };
}

describe("POST /api/otel/v1/traces with OpenTelemetry's exporters", () => {
  it("audits runs sent as protobuf and as JSON: a write pending at scoring is unresolved, later resolved_after_scoring; the two runs on one account one unit", async () => {
    await lab.createEvaluation({ name: EVALUATION, effectPolicy: { tools: { get_balance: "read_only", send_money: "async_handle" } } });
    const headers = { authorization: `Bearer ${key}` };
    const protobuf = tracerProvider(new ProtobufExporter({ url: tracesUrl(), headers }), EVALUATION);
    const json = tracerProvider(new JsonExporter({ url: tracesUrl(), headers }), EVALUATION);
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
    const id = await evaluationIdOf(database.db, "otlp json fixture");
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
    const id = await evaluationIdOf(database.db, "otel first batch");
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
    const run = await getEvaluationRun(database.db, await evaluationIdOf(database.db, "otel two traces"), "shared-run");
    expect(run).toMatchObject({ finality: "unresolved", unresolvedReason: "resolved_after_scoring", endpointLabel: "success" });
    expect(run?.effects.map((e) => [e.effect_id, e.status_at_scoring, e.handle])).toEqual([["pay-1", "pending", "op-pay-1"]]);
  });
});

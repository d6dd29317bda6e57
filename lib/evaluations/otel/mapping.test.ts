import { describe, expect, it } from "vitest";
import { planTraces } from "./mapping";
import { readScore, type PlannedScore } from "./scores";
import type { OtlpResourceSpans, OtlpSpan } from "./spans";

// The OTLP mapping (docs/otel.md's table), span by span, with no database and no network.
const TRACE = "0af7651916cd43dd8448eb211c80319c";
const T0 = Date.UTC(2026, 11, 4, 10, 0, 0);
const span = (spanId: string, fields: Partial<OtlpSpan> = {}): OtlpSpan => ({
  traceId: TRACE,
  spanId,
  parentSpanId: null,
  name: "span",
  startMs: T0,
  endMs: T0 + 100,
  attributes: {},
  events: [],
  statusCode: 0,
  ...fields,
});
const resource = (
  spans: OtlpSpan[],
  attributes: Record<string, string> = { "boundary_lab.evaluation": "bank", "service.name": "agents" },
) => [{ resource: attributes, spans }];
const tool = (spanId: string, attributes: Record<string, string | number>, fields: Partial<OtlpSpan> = {}) =>
  span(spanId, { name: "execute_tool send_money", attributes: { "gen_ai.operation.name": "execute_tool", ...attributes }, ...fields });
const only = (batch: OtlpResourceSpans[]) => {
  const plan = planTraces(batch);
  expect(plan.traces).toHaveLength(1);
  return { trace: plan.traces[0]!, rejected: plan.rejected };
};

describe("planTraces", () => {
  it("reads names as the live-run schemas take them, trimmed: the run stored under a name is the one its record names", () => {
    const { trace } = only(
      resource(
        [
          span("aaaaaaaaaaaaaaa1", {
            attributes: { "gen_ai.operation.name": "invoke_agent", "boundary_lab.run.id": " run-7 ", "boundary_lab.task.id": "\ttask-1\n" },
          }),
          tool("aaaaaaaaaaaaaaa2", { "gen_ai.tool.name": " get_balance ", "boundary_lab.effect.surface": "   " }),
        ],
        { "boundary_lab.evaluation": " bank ", "service.name": " agents " },
      ),
    );
    expect(trace).toMatchObject({ evaluation: "bank", harness: "agents", runId: "run-7", taskId: "task-1" });
    expect(trace.events[0]!.event).toMatchObject({ tool: "get_balance" });
    expect(trace.events[0]!.event).not.toHaveProperty("surface");
  });

  it("makes an execute_tool span an effect requested at its start and completed at its end, named by its tool call id", () => {
    const { trace, rejected } = only(
      resource([
        span("aaaaaaaaaaaaaaa1", {
          attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "banker", "boundary_lab.run.id": "run-7" },
        }),
        tool(
          "aaaaaaaaaaaaaaa2",
          { "gen_ai.tool.name": "get_balance", "gen_ai.tool.call.id": "call-1", "gen_ai.tool.call.arguments": '{"account":"alice"}' },
          { startMs: T0 + 10, endMs: T0 + 20 },
        ),
      ]),
    );
    expect(rejected).toEqual([]);
    expect(trace).toMatchObject({
      evaluation: "bank",
      harness: "agents",
      traceId: TRACE,
      runId: "run-7",
      taskId: "banker",
      startedAtMs: T0,
    });
    expect(trace.events.map((e) => e.event)).toEqual([
      {
        eventId: "aaaaaaaaaaaaaaa2.requested",
        type: "effect_requested",
        at: new Date(T0 + 10).toISOString(),
        effectId: "call-1",
        tool: "get_balance",
        callId: "call-1",
        arguments: { account: "alice" },
      },
      {
        eventId: "aaaaaaaaaaaaaaa2.ended",
        type: "effect_status",
        at: new Date(T0 + 20).toISOString(),
        effectId: "call-1",
        status: "completed",
      },
    ]);
    expect(trace.spans.map((s) => s.spanId)).toEqual(["aaaaaaaaaaaaaaa1", "aaaaaaaaaaaaaaa2"]);
  });

  it("takes the span's own status, handle and surface when it says them, failed on an error status, and the AI SDK's ai.toolCall spans", () => {
    const { trace } = only(
      resource([
        tool("aaaaaaaaaaaaaaa1", {
          "gen_ai.tool.name": "send_money",
          "boundary_lab.effect.status": "pending",
          "boundary_lab.effect.handle": "op-9",
          "boundary_lab.effect.surface": "acct:alice",
        }),
        tool("aaaaaaaaaaaaaaa2", { "gen_ai.tool.name": "send_money" }, { statusCode: 2, statusMessage: "timeout" }),
        span("aaaaaaaaaaaaaaa3", {
          name: "ai.toolCall",
          attributes: { "ai.toolCall.name": "lookup", "ai.toolCall.id": "tc-1", "ai.toolCall.args": "[1]" },
        }),
      ]),
    );
    expect(
      trace.events.map((e) => [
        e.event.type,
        "effectId" in e.event ? e.event.effectId : "",
        "status" in e.event ? e.event.status : "",
        "handle" in e.event ? e.event.handle : "",
      ]),
    ).toEqual([
      ["effect_requested", "aaaaaaaaaaaaaaa1", "", "op-9"],
      ["effect_status", "aaaaaaaaaaaaaaa1", "pending", ""],
      ["effect_requested", "aaaaaaaaaaaaaaa2", "", ""],
      ["effect_status", "aaaaaaaaaaaaaaa2", "failed", ""],
      ["effect_requested", "tc-1", "", ""],
      ["effect_status", "tc-1", "completed", ""],
    ]);
    expect(trace.events[0]!.event).toMatchObject({ surface: "acct:alice" });
    expect(trace.asyncTools).toEqual(["send_money"]); // its span said pending, with a handle
    // A span's end is the harness's word: its message is kept as the effect's note, never as evidence.
    expect(trace.events[3]!.event).toMatchObject({ detail: "timeout" });
    expect(trace.events.some((e) => "evidence" in e.event)).toBe(false);
    expect(trace.taskId).toBeUndefined(); // no task id, no agent name: the receiver takes the resource's service.name
  });

  it("reads later statuses, touches, resets and the score from span events, the first evaluation result scoring the run", () => {
    const at = (ms: number) => ({ atMs: T0 + ms });
    const { trace, rejected } = only(
      resource([
        tool(
          "aaaaaaaaaaaaaaa1",
          { "gen_ai.tool.name": "send_money", "gen_ai.tool.call.id": "c1", "boundary_lab.effect.status": "pending" },
          {
            events: [
              { name: "boundary_lab.touch", ...at(5), attributes: { "boundary_lab.surface": "acct:bob", "boundary_lab.op": "read" } },
            ],
          },
        ),
        span("aaaaaaaaaaaaaaa2", {
          attributes: { "boundary_lab.task.id": "transfer" },
          events: [
            {
              name: "boundary_lab.reset",
              ...at(1),
              attributes: { "boundary_lab.surface": "acct:alice", "boundary_lab.verified": true, "boundary_lab.evidence": "read back" },
            },
            {
              name: "gen_ai.evaluation.result",
              ...at(200),
              attributes: { "gen_ai.evaluation.name": "task", "gen_ai.evaluation.score.label": "pass", "gen_ai.evaluation.score.value": 1 },
            },
            { name: "gen_ai.evaluation.result", ...at(300), attributes: { "gen_ai.evaluation.score.label": "fail" } },
            {
              name: "boundary_lab.effect.status",
              ...at(900),
              attributes: { "boundary_lab.effect.id": "c1", "boundary_lab.effect.status": "completed" },
            },
          ],
        }),
      ]),
    );
    expect(rejected).toEqual([]);
    expect(trace.taskId).toBe("transfer");
    expect(trace.score).toEqual({ spanId: "aaaaaaaaaaaaaaa2", atMs: T0 + 200, name: "task", label: "pass", value: 1 });
    expect(trace.events.slice(2).map((e) => e.event)).toEqual([
      { eventId: "aaaaaaaaaaaaaaa1.event-0", type: "touch", at: new Date(T0 + 5).toISOString(), surface: "acct:bob", op: "read" },
      {
        eventId: "aaaaaaaaaaaaaaa2.event-0",
        type: "reset",
        at: new Date(T0 + 1).toISOString(),
        surface: "acct:alice",
        verified: true,
        evidence: "read back",
      },
      {
        eventId: "aaaaaaaaaaaaaaa2.event-3",
        type: "effect_status",
        at: new Date(T0 + 900).toISOString(),
        effectId: "c1",
        status: "completed",
      },
    ]);
  });

  it("rejects, each with its reason, the spans it cannot use: no tool name, a status or op out of its values, a score with neither label nor value, no evaluation, no agent data", () => {
    const plan = planTraces([
      ...resource([
        tool("aaaaaaaaaaaaaaa1", {}),
        tool("aaaaaaaaaaaaaaa2", { "gen_ai.tool.name": "x", "boundary_lab.effect.status": "done" }),
        span("aaaaaaaaaaaaaaa3", {
          events: [{ name: "boundary_lab.touch", atMs: T0, attributes: { "boundary_lab.surface": "s", "boundary_lab.op": "delete" } }],
        }),
        span("aaaaaaaaaaaaaaa4", { events: [{ name: "gen_ai.evaluation.result", atMs: T0, attributes: {} }] }),
        span("aaaaaaaaaaaaaaa5", {
          events: [{ name: "boundary_lab.effect.status", atMs: T0, attributes: { "boundary_lab.effect.status": "completed" } }],
        }),
      ]),
      ...resource([tool("bbbbbbbbbbbbbbb1", { "gen_ai.tool.name": "x" })], { "service.name": "agents" }),
      ...resource([span("ccccccccccccccc1", { traceId: "1af7651916cd43dd8448eb211c80319c", name: "GET /health" })]),
    ]);
    expect(plan.rejected).toEqual([
      { spanId: "aaaaaaaaaaaaaaa1", reason: "an execute_tool span needs gen_ai.tool.name (span aaaaaaaaaaaaaaa1)" },
      {
        spanId: "aaaaaaaaaaaaaaa2",
        reason: "boundary_lab.effect.status must be one of pending, completed, failed, cancelled, unknown (span aaaaaaaaaaaaaaa2)",
      },
      { spanId: "aaaaaaaaaaaaaaa3", reason: "boundary_lab.op must be read or write (event 0 of span aaaaaaaaaaaaaaa3)" },
      {
        spanId: "aaaaaaaaaaaaaaa4",
        reason:
          "a gen_ai.evaluation.result event needs gen_ai.evaluation.score.label or gen_ai.evaluation.score.value (event 0 of span aaaaaaaaaaaaaaa4)",
      },
      {
        spanId: "aaaaaaaaaaaaaaa5",
        reason: "a boundary_lab.effect.status event off a tool span needs boundary_lab.effect.id (event 0 of span aaaaaaaaaaaaaaa5)",
      },
      {
        spanId: "bbbbbbbbbbbbbbb1",
        reason: "the resource names no evaluation: set the resource attribute boundary_lab.evaluation (an id, or a name)",
      },
      {
        spanId: "ccccccccccccccc1",
        reason:
          "trace 1af7651916cd43dd8448eb211c80319c is not an agent run (no gen_ai.operation.name, AI SDK tool or model-call span, or boundary_lab data)",
      },
    ]);
  });
});

describe("readScore", () => {
  const result = (fields: Partial<PlannedScore>): PlannedScore => ({ spanId: "aaaaaaaaaaaaaaa9", atMs: T0, ...fields });
  const none = { labelMap: null, scoreThreshold: null };
  const at = new Date(T0).toISOString();

  it("reads a free-text label by the trace's label map, then the evaluation's, then the conventions' words", () => {
    const evaluation = { labelMap: { relevant: "success", irrelevant: "failure" } as const, scoreThreshold: null };
    expect(readScore(result({ label: "relevant" }), evaluation)).toEqual({ endpointLabel: "success", at });
    expect(readScore(result({ label: "relevant" }), evaluation, { relevant: "failure" })).toEqual({ endpointLabel: "failure", at });
    expect(readScore(result({ label: "pass", value: 0.2 }), none)).toEqual({ endpointLabel: "success", at, score: 0.2 });
    // An evaluation may read a conventional word its own way.
    expect(readScore(result({ label: "pass" }), { labelMap: { pass: "failure" }, scoreThreshold: null })).toEqual({
      endpointLabel: "failure",
      at,
    });
  });

  it("judges a value against the threshold when no label reads, and stores an unreadable result unscored with the reason, never open", () => {
    expect(readScore(result({ label: "relevant", value: 0.9 }), { labelMap: null, scoreThreshold: 0.5 })).toEqual({
      endpointLabel: "success",
      at,
      score: 0.9,
      threshold: 0.5,
    });
    expect(readScore(result({ label: "relevant" }), none)).toEqual({
      at,
      unscoredReason:
        "gen_ai.evaluation.score.label \"relevant\" is in no labelMap (the evaluation's, or the resource's boundary_lab.label_map) and is neither success nor failure (nor success, pass, passed, correct, true, failure, fail, failed, incorrect, false) (span aaaaaaaaaaaaaaa9)",
    });
    expect(readScore(result({ value: 3 }), none)).toEqual({
      at,
      unscoredReason:
        "gen_ai.evaluation.score.value 3 has no label, and the evaluation declares no scoreThreshold to judge it by (span aaaaaaaaaaaaaaa9)",
    });
  });

  it("takes a resource's boundary_lab.label_map, and refuses its spans when it is not one, naming it", () => {
    const scored = span("aaaaaaaaaaaaaaa1", {
      attributes: { "boundary_lab.task.id": "t" },
      events: [{ name: "gen_ai.evaluation.result", atMs: T0 + 5, attributes: { "gen_ai.evaluation.score.label": "Relevant" } }],
    });
    const mapped = only(resource([scored], { "boundary_lab.evaluation": "bank", "boundary_lab.label_map": '{"RELEVANT": "success"}' }));
    expect(mapped.trace.labelMap).toEqual({ relevant: "success" });
    expect(readScore(mapped.trace.score!, none, mapped.trace.labelMap)).toMatchObject({ endpointLabel: "success" });
    const refused = planTraces(resource([scored], { "boundary_lab.evaluation": "bank", "boundary_lab.label_map": '{"relevant": "yes"}' }));
    expect(refused.traces).toEqual([]);
    expect(refused.rejected[0]!.reason).toMatch(
      /^the resource attribute boundary_lab\.label_map is not a label map \(a labelMap value must be success or failure\)/,
    );
  });
});

describe("model-call spans", () => {
  const chat = (spanId: string, attributes: Record<string, string | number>, fields: Partial<OtlpSpan> = {}) =>
    span(spanId, { name: "chat gpt-4o", attributes: { "gen_ai.operation.name": "chat", ...attributes }, ...fields });
  const calls = (batch: OtlpResourceSpans[]) =>
    only(batch).trace.events.flatMap(({ spanId, event }) => (event.type === "model_call" ? [{ spanId, event }] : []));

  it("a GenAI chat span is a model call: start, duration, the response's model, tokens; an error status a failed attempt", () => {
    expect(
      calls(
        resource([
          chat("aaaaaaaaaaaaaaa1", {
            "gen_ai.request.model": "gpt-4o",
            "gen_ai.response.model": "gpt-4o-2024-08-06",
            "gen_ai.usage.input_tokens": 1_200,
            "gen_ai.usage.output_tokens": 40,
          }),
          chat("aaaaaaaaaaaaaaa2", { "gen_ai.request.model": "gpt-4o" }, { startMs: T0 + 500, endMs: T0 + 750, statusCode: 2 }),
        ]),
      ),
    ).toEqual([
      {
        spanId: "aaaaaaaaaaaaaaa1",
        event: {
          eventId: "aaaaaaaaaaaaaaa1.model",
          type: "model_call",
          at: new Date(T0).toISOString(),
          model: "gpt-4o-2024-08-06",
          durationMs: 100,
          inputTokens: 1_200,
          outputTokens: 40,
        },
      },
      {
        spanId: "aaaaaaaaaaaaaaa2",
        event: {
          eventId: "aaaaaaaaaaaaaaa2.model",
          type: "model_call",
          at: new Date(T0 + 500).toISOString(),
          model: "gpt-4o",
          durationMs: 250,
          error: "the span ended with an error status",
        },
      },
    ]);
  });

  it("the AI SDK's doGenerate and doStream spans are calls (their older usage names too), its outer generateText span not; a call nested in a call once", () => {
    const found = calls(
      resource([
        span("aaaaaaaaaaaaaaa1", { name: "ai.generateText", attributes: { "ai.usage.inputTokens": 30, "boundary_lab.run.id": "r" } }),
        span("aaaaaaaaaaaaaaa2", {
          name: "ai.generateText.doGenerate",
          parentSpanId: "aaaaaaaaaaaaaaa1",
          attributes: { "ai.model.id": "mock-model-id", "ai.usage.inputTokens": 10, "ai.usage.outputTokens": 5 },
        }),
        span("aaaaaaaaaaaaaaa3", {
          name: "ai.streamText.doStream",
          parentSpanId: "aaaaaaaaaaaaaaa1",
          attributes: { "ai.model.id": "mock-model-id", "ai.usage.promptTokens": 20, "ai.usage.completionTokens": 7 },
        }),
        chat("aaaaaaaaaaaaaaa4", { "gen_ai.usage.input_tokens": 20 }, { parentSpanId: "aaaaaaaaaaaaaaa3" }),
      ]),
    );
    expect(found.map(({ spanId, event }) => [spanId, "inputTokens" in event ? event.inputTokens : null])).toEqual([
      ["aaaaaaaaaaaaaaa2", 10],
      ["aaaaaaaaaaaaaaa3", 20],
    ]);
  });

  it("a trace of model calls alone is an agent run; a token count that is not a whole number rejects its span, naming it", () => {
    const { trace, rejected } = only(
      resource([chat("aaaaaaaaaaaaaaa1", { "gen_ai.usage.output_tokens": 2.5 }), chat("aaaaaaaaaaaaaaa2", {})]),
    );
    expect(rejected).toEqual([
      {
        spanId: "aaaaaaaaaaaaaaa1",
        reason: "gen_ai.usage.output_tokens must be a whole number of tokens from 0 to 2147483647 (span aaaaaaaaaaaaaaa1)",
      },
    ]);
    expect(trace.events.map((e) => e.event.eventId)).toEqual(["aaaaaaaaaaaaaaa2.model"]);
  });
});

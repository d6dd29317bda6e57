import { trace } from "@opentelemetry/api";
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { DelayedWriteClient } from "@/lib/delayed-write/delayed-write-client";
import type { EvaluationClient } from "@/lib/evaluations/client/api-client";
import { getEvaluationRun } from "@/lib/evaluations/read/evaluation-run";
import type { TestDatabase } from "@/lib/testing/database";
import { tracerProvider, useOtlpRoutes } from "@/lib/testing/otlp-routes";

// OTLP in (docs/otel.md) over real HTTP into the route handler on a real PostgreSQL: GenAI chat spans
// as a run's model calls, and an agent built on the Vercel AI SDK whose tool's write is pending at scoring.
let database: TestDatabase;
let key: string;
let api: { origin: string };
let lab: EvaluationClient;
let bank: DelayedWriteClient;
useOtlpRoutes(
  async () => {
    const [otlp, evaluations, summary] = await Promise.all([
      import("./route"),
      import("@/app/api/v1/evaluations/route"),
      import("@/app/api/v1/evaluations/[id]/summary/route"),
    ]);
    return [
      { path: /^\/api\/otel\/v1\/traces$/, methods: { POST: otlp.POST } },
      { path: /^\/api\/v1\/evaluations$/, methods: { POST: evaluations.POST } },
      { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/summary$/, methods: { GET: summary.GET } },
    ];
  },
  (served) => ({ database, key, api, lab, bank } = served),
);
const tracesUrl = () => `${api.origin}/api/otel/v1/traces`;

describe("POST /api/otel/v1/traces: model calls", () => {
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

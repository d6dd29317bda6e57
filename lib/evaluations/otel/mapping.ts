// From OpenTelemetry spans to live-run evidence, pure. The table in docs/otel.md is
// this file's; the GenAI semantic conventions it reads are those of semconv 1.38 (Development status).
//
// - A run is a trace. Its name is `boundary_lab.run.id` (on any of its spans, or the resource; the
//   AI SDK's `ai.telemetry.metadata.boundary_lab.run.id` too), else
//   the trace id; its task `boundary_lab.task.id`, else `gen_ai.agent.name` (else, in the receiver,
//   the resource's `service.name`). A later batch of the trace may name both while the run is open.
// - An effect is an `execute_tool` span (`gen_ai.operation.name`) or a Vercel AI SDK `ai.toolCall`
//   span: requested at its start, its first status at its end (`boundary_lab.effect.status` when the
//   span says it, else `failed` on an error status, else `completed`): the harness's word, not evidence. Its id is the tool call's id,
//   else the span's; `boundary_lab.effect.handle` / `.surface` give its handle and surface.
// - Span events: `boundary_lab.effect.status` (a later status; `boundary_lab.effect.id` names the
//   effect when the event is not on its own span), `boundary_lab.touch`, `boundary_lab.reset`, and
//   `gen_ai.evaluation.result`, the run's score (its label, else its value against a threshold).
// - A model call is a GenAI inference span (`gen_ai.operation.name` chat, text_completion or
//   generate_content) or an AI SDK `ai.generateText.doGenerate` / `ai.streamText.doStream` (and
//   `…Object` alike) span: started at the span's start, lasting to its end, with its model and tokens.
//   One nested in another model-call span of the request (a provider's instrumentation under the AI
//   SDK's) is the same call, counted once.
// - Each event's id is made from its span's id, so a span sent again adds nothing.
// A trace with none of this is not an agent run: its spans are counted as rejected, with the reason.
// The names it reads are conventions.ts's; how a score reads is scores.ts's.
import { INT4_MAX } from "../../http/storable";
import type { LabelMap } from "../evaluation-requests";
import type { LiveEvent } from "../live/live-run-schemas";
import { isoTime as iso } from "../../format/time";
import { EFFECT_STATUSES, type EffectStatus } from "../vocabulary";
import { ATTR, EVENT, isAgentData, isModelCallSpan, isToolSpan } from "./conventions";
import { resourceLabelMap, type PlannedScore } from "./scores";
import type { AttributeValue, Attributes, OtlpResourceSpans, OtlpSpan } from "./spans";

export interface SpanRow {
  spanId: string;
  parentSpanId: string | null;
  name: string;
  startMs: number;
  endMs: number;
  statusCode: 0 | 1 | 2;
  attributes: Attributes;
}

/** One trace of one request: the run it is, the events it adds, its score if it has one. */
export interface TracePlan {
  /** The resource's `boundary_lab.evaluation` (an id or a name) and its `service.name`. */
  evaluation: string;
  harness?: string;
  traceId: string;
  runId?: string;
  /** `boundary_lab.task.id`, else `gen_ai.agent.name`, when a span of this request says it (the receiver falls back to the harness). */
  taskId?: string;
  startedAtMs: number;
  events: { spanId: string; event: LiveEvent }[];
  /** Tools whose span said its call was acknowledged before applied (pending, with a handle): suggested async_handle. */
  asyncTools: string[];
  score?: PlannedScore;
  /** The resource's `boundary_lab.label_map`: its labels read before the evaluation's. */
  labelMap?: LabelMap;
  spans: SpanRow[];
}

export interface SpanRefusal {
  spanId: string;
  reason: string;
}

export interface Plan {
  traces: TracePlan[];
  rejected: SpanRefusal[];
}

/** An attribute as set on the span, or as the Vercel AI SDK passes telemetry metadata (`ai.telemetry.metadata.<name>`). */
const own = (attributes: Attributes, name: string): AttributeValue | undefined =>
  attributes[name] ?? attributes[`ai.telemetry.metadata.${name}`];
/** An attribute's text as the live-run schemas take it (trimmed): the run's names are stored as they are read here. */
const text = (value: AttributeValue | undefined): string | undefined =>
  typeof value === "string" ? value.trim() || undefined : typeof value === "number" ? String(value) : undefined;

function argumentsOf(span: OtlpSpan): Record<string, unknown> | undefined {
  const raw = span.attributes[ATTR.toolCallArguments] ?? span.attributes[ATTR.aiToolArgs];
  if (typeof raw !== "string") return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const statusOf = (value: AttributeValue | undefined): EffectStatus | undefined =>
  typeof value === "string" && (EFFECT_STATUSES as readonly string[]).includes(value) ? (value as EffectStatus) : undefined;

/** A token count as a model call takes it: the first of `names` the span sets; a refusal naming it when it is not a whole number ≥ 0. */
function tokenCount(span: OtlpSpan, names: readonly string[]): { value?: number } | { refusal: string } {
  const name = names.find((n) => span.attributes[n] !== undefined && span.attributes[n] !== null);
  if (name === undefined) return {};
  const value = span.attributes[name];
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= INT4_MAX) return { value };
  return { refusal: `${name} must be a whole number of tokens from 0 to ${INT4_MAX} (span ${span.spanId})` };
}

/** A model-call span as its run's model_call event (its id `<spanId>.model`), or why it cannot be one. */
function modelCallOfSpan(span: OtlpSpan): LiveEvent | { refusal: string } {
  const input = tokenCount(span, [ATTR.inputTokens, ATTR.aiInputTokens, ATTR.aiPromptTokens]);
  if ("refusal" in input) return input;
  const output = tokenCount(span, [ATTR.outputTokens, ATTR.aiOutputTokens, ATTR.aiCompletionTokens]);
  if ("refusal" in output) return output;
  const model =
    text(span.attributes[ATTR.responseModel]) ??
    text(span.attributes[ATTR.aiResponseModel]) ??
    text(span.attributes[ATTR.requestModel]) ??
    text(span.attributes[ATTR.aiModelId]);
  const error = span.statusCode === 2 ? (span.statusMessage?.trim() || "the span ended with an error status").slice(0, 4_000) : undefined;
  return {
    eventId: `${span.spanId}.model`,
    type: "model_call",
    at: iso(span.startMs),
    ...(model && { model: model.slice(0, 200) }),
    durationMs: Math.max(0, span.endMs - span.startMs),
    ...(input.value !== undefined && { inputTokens: input.value }),
    ...(output.value !== undefined && { outputTokens: output.value }),
    ...(error && { error }),
  };
}

/**
 * The events one span adds to its run; a refusal (the whole span) when it cannot be used as sent.
 * `nestedCall`: the span is a model call inside another model-call span of the request (the same call).
 */
function eventsOfSpan(
  span: OtlpSpan,
  nestedCall = false,
): { events: LiveEvent[]; score?: PlannedScore; asyncTool?: string } | { refusal: string } {
  const events: LiveEvent[] = [];
  if (isModelCallSpan(span) && !nestedCall) {
    const call = modelCallOfSpan(span);
    if ("refusal" in call) return call;
    events.push(call);
  }
  let score: PlannedScore | undefined;
  let ownEffect: string | undefined;
  let asyncTool: string | undefined;
  if (isToolSpan(span)) {
    const tool = text(span.attributes[ATTR.toolName]) ?? text(span.attributes[ATTR.aiToolName]);
    if (!tool) return { refusal: `an execute_tool span needs ${ATTR.toolName} (span ${span.spanId})` };
    const callId = text(span.attributes[ATTR.toolCallId]) ?? text(span.attributes[ATTR.aiToolCallId]);
    const declared = span.attributes[ATTR.effectStatus];
    const status = declared === undefined ? (span.statusCode === 2 ? "failed" : "completed") : statusOf(declared);
    if (!status) return { refusal: `${ATTR.effectStatus} must be one of ${EFFECT_STATUSES.join(", ")} (span ${span.spanId})` };
    ownEffect = callId ?? span.spanId;
    const surface = text(span.attributes[ATTR.effectSurface]);
    const handle = text(span.attributes[ATTR.effectHandle]);
    if (status === "pending" && handle) asyncTool = tool;
    const args = argumentsOf(span);
    events.push({
      eventId: `${span.spanId}.requested`,
      type: "effect_requested",
      at: iso(span.startMs),
      effectId: ownEffect,
      tool,
      ...(surface && { surface }),
      ...(handle && { handle }),
      ...(callId && { callId }),
      ...(args && { arguments: args }),
    });
    const detail = span.statusMessage?.trim().slice(0, 4_000);
    events.push({
      eventId: `${span.spanId}.ended`,
      type: "effect_status",
      at: iso(span.endMs),
      effectId: ownEffect,
      status,
      // A span's end is the harness's word (the tool returned), never evidence: it proves terminal only for a sync_confirmed tool.
      ...(detail && { detail }),
    });
  }
  for (const [index, event] of span.events.entries()) {
    const eventId = `${span.spanId}.event-${index}`;
    const at = iso(event.atMs);
    const attributes = event.attributes;
    const where = `(event ${index} of span ${span.spanId})`;
    if (event.name === EVENT.effectStatus) {
      const effectId = text(attributes[ATTR.effectId]) ?? ownEffect;
      if (!effectId) return { refusal: `a ${EVENT.effectStatus} event off a tool span needs ${ATTR.effectId} ${where}` };
      const status = statusOf(attributes[ATTR.effectStatus]);
      if (!status) return { refusal: `${ATTR.effectStatus} must be one of ${EFFECT_STATUSES.join(", ")} ${where}` };
      const evidence = text(attributes[ATTR.evidence]);
      const handle = text(attributes[ATTR.effectHandle]);
      const source = evidence ? { source: `OTLP span ${span.spanId}` } : {};
      events.push({
        eventId,
        type: "effect_status",
        at,
        effectId,
        status,
        ...(evidence && { evidence }),
        ...source,
        ...(handle && { handle }),
      });
    } else if (event.name === EVENT.touch) {
      const surface = text(attributes[ATTR.surface]);
      const op = attributes[ATTR.op];
      if (!surface) return { refusal: `a ${EVENT.touch} event needs ${ATTR.surface} ${where}` };
      if (op !== "read" && op !== "write") return { refusal: `${ATTR.op} must be read or write ${where}` };
      events.push({ eventId, type: "touch", at, surface, op });
    } else if (event.name === EVENT.reset) {
      const surface = text(attributes[ATTR.surface]);
      const verified = attributes[ATTR.verified];
      if (!surface) return { refusal: `a ${EVENT.reset} event needs ${ATTR.surface} ${where}` };
      if (typeof verified !== "boolean") return { refusal: `${ATTR.verified} must be true or false ${where}` };
      const evidence = text(attributes[ATTR.evidence]);
      events.push({ eventId, type: "reset", at, surface, verified, ...(evidence && { evidence }) });
    } else if (event.name === EVENT.evaluationResult && score === undefined) {
      // A label is read when the run is scored (readScore: the evaluation's label map is the receiver's to know).
      const label = text(attributes[ATTR.scoreLabel])?.toLowerCase();
      const raw = attributes[ATTR.scoreValue];
      const value = typeof raw === "number" && Number.isFinite(raw) ? raw : undefined;
      if (label === undefined && value === undefined)
        return { refusal: `a ${EVENT.evaluationResult} event needs ${ATTR.scoreLabel} or ${ATTR.scoreValue} ${where}` };
      const name = text(attributes[ATTR.evaluationName]);
      score = {
        spanId: span.spanId,
        atMs: event.atMs,
        ...(name && { name }),
        ...(label && { label }),
        ...(value !== undefined && { value }),
      };
    }
  }
  return { events, ...(score && { score }), ...(asyncTool && { asyncTool }) };
}

/** The request's traces as runs, and every span it cannot use with the reason; resources are grouped by the evaluation they name. */
export function planTraces(batch: readonly OtlpResourceSpans[]): Plan {
  const traces = new Map<string, TracePlan>();
  const agentTraces = new Set<string>();
  const rejected: SpanRefusal[] = [];
  const modelCallSpans = new Set<string>();
  for (const { spans } of batch)
    for (const span of spans) {
      if (isAgentData(span)) agentTraces.add(span.traceId);
      if (isModelCallSpan(span)) modelCallSpans.add(`${span.traceId}:${span.spanId}`);
    }
  const seen = new Set<string>();
  for (const { resource, spans } of batch) {
    const evaluation = text(resource[ATTR.evaluation]);
    const harness = text(resource[ATTR.serviceName]);
    const labelMap = resourceLabelMap(resource[ATTR.labelMap]);
    for (const span of spans) {
      // A span twice in one request (an exporter's retry merged into a batch) counts once.
      if (seen.has(`${span.traceId}:${span.spanId}`)) continue;
      seen.add(`${span.traceId}:${span.spanId}`);
      if (!agentTraces.has(span.traceId)) {
        rejected.push({
          spanId: span.spanId,
          reason: `trace ${span.traceId} is not an agent run (no gen_ai.operation.name, AI SDK tool or model-call span, or boundary_lab data)`,
        });
        continue;
      }
      if (!evaluation) {
        rejected.push({
          spanId: span.spanId,
          reason: `the resource names no evaluation: set the resource attribute ${ATTR.evaluation} (an id, or a name)`,
        });
        continue;
      }
      if ("refusal" in labelMap) {
        rejected.push({ spanId: span.spanId, reason: labelMap.refusal });
        continue;
      }
      const key = `${evaluation}\u0000${span.traceId}`;
      let trace = traces.get(key);
      if (!trace) {
        trace = {
          evaluation,
          ...(harness && { harness }),
          traceId: span.traceId,
          startedAtMs: span.startMs,
          events: [],
          asyncTools: [],
          spans: [],
          ...(labelMap.map && { labelMap: labelMap.map }),
        };
        const runId = text(resource[ATTR.runId]);
        if (runId) trace.runId = runId;
        traces.set(key, trace);
      }
      trace.startedAtMs = Math.min(trace.startedAtMs, span.startMs);
      trace.runId ??= text(own(span.attributes, ATTR.runId));
      const task = text(own(span.attributes, ATTR.taskId)) ?? text(span.attributes[ATTR.agentName]);
      if (task && (trace.taskId === undefined || text(own(span.attributes, ATTR.taskId)))) trace.taskId = task;
      trace.spans.push({
        spanId: span.spanId,
        parentSpanId: span.parentSpanId,
        name: span.name,
        startMs: span.startMs,
        endMs: span.endMs,
        statusCode: span.statusCode,
        attributes: span.attributes,
      });
      const made = eventsOfSpan(span, span.parentSpanId !== null && modelCallSpans.has(`${span.traceId}:${span.parentSpanId}`));
      if ("refusal" in made) {
        rejected.push({ spanId: span.spanId, reason: made.refusal });
        continue;
      }
      trace.events.push(...made.events.map((event) => ({ spanId: span.spanId, event })));
      if (made.asyncTool && !trace.asyncTools.includes(made.asyncTool)) trace.asyncTools.push(made.asyncTool);
      if (made.score && (!trace.score || made.score.atMs < trace.score.atMs)) trace.score = made.score;
    }
  }
  return { traces: [...traces.values()], rejected };
}

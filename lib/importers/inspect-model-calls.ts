// An Inspect sample's model events as the run's model calls (lib/testing/fixtures/inspect/README.md):
// the model, when the call started (`timestamp`) and how long it took (`completed` − `timestamp`, else
// `output.time`), the tokens of `output.usage`, the error of an attempt that failed (a retried call
// logs each failed attempt as an event of its own). Each call is tied to the assistant message it
// produced: by the message's id (newer logs), else, when every call that succeeded has one, by order.
// A failed attempt goes with the next call that succeeded. Pure.
import { z } from "zod";
import { INT4_MAX } from "../http/storable";
import { MAX_RUN_MODEL_CALLS, type MessageRecord, type ModelCallRecord } from "../evaluations/run-record-schema";
import { roleOf } from "./transcript";

const timeSchema = z.string().refine((s) => Number.isFinite(Date.parse(s)), "not a time");
const tokenCount = z.number().int().min(0).max(INT4_MAX).nullish().catch(null);
const modelEventSchema = z.looseObject({
  event: z.literal("model"),
  timestamp: timeSchema.nullish().catch(null),
  completed: timeSchema.nullish().catch(null),
  model: z.string().nullish().catch(null),
  error: z.string().nullish().catch(null),
  output: z
    .looseObject({
      time: z.number().min(0).nullish().catch(null),
      usage: z.looseObject({ input_tokens: tokenCount, output_tokens: tokenCount }).nullish().catch(null),
      choices: z
        .array(z.looseObject({ message: z.looseObject({ id: z.string().nullish() }).nullish() }))
        .nullish()
        .catch(null),
    })
    .nullish()
    .catch(null),
});
type ModelEvent = z.infer<typeof modelEventSchema>;

const inspectMessageSchema = z.looseObject({ role: z.string(), id: z.string().nullish() });

const iso = (time: string) => new Date(time).toISOString();
const text = (value: string | null | undefined, max: number) => {
  const trimmed = value?.trim();
  return trimmed ? trimmed.slice(0, max) : undefined;
};

function durationOf(event: ModelEvent): number | undefined {
  if (event.timestamp && event.completed) {
    const ms = Date.parse(event.completed) - Date.parse(event.timestamp);
    if (ms >= 0) return ms;
  }
  return event.output?.time != null ? event.output.time * 1_000 : undefined;
}

/**
 * The sample's model calls, in the timeline's order. `messages` are the sample's as logged and
 * `transcript` the run's messages made of them (a message of a role the transcript has no place for
 * is left out of it, so positions are counted in the transcript); a call is tied only to an assistant
 * message of the transcript.
 */
export function modelCallsOfSample(
  events: readonly unknown[],
  messages: readonly unknown[],
  transcript: readonly MessageRecord[],
): ModelCallRecord[] {
  const modelEvents = events.flatMap((raw) => {
    const parsed = modelEventSchema.safeParse(raw);
    return parsed.success ? [parsed.data] : [];
  });
  if (modelEvents.length === 0) return [];
  // Each logged message's position in the transcript, for the assistant messages it kept.
  const assistantPositions: { id?: string; position: number }[] = [];
  let position = 0;
  for (const raw of messages) {
    const message = inspectMessageSchema.safeParse(raw);
    if (!message.success || !roleOf(message.data.role)) continue;
    if (message.data.role === "assistant" && transcript[position]?.role === "assistant")
      assistantPositions.push({ ...(message.data.id && { id: message.data.id }), position });
    position += 1;
  }
  const byId = new Map(assistantPositions.flatMap((m) => (m.id ? [[m.id, m.position] as const] : [])));
  const succeeded = modelEvents.filter((e) => !e.error);
  const outputId = (event: ModelEvent) => event.output?.choices?.[0]?.message?.id ?? undefined;
  const matchedById = succeeded.some((e) => {
    const id = outputId(e);
    return id !== undefined && byId.has(id);
  });
  const inOrder = !matchedById && succeeded.length === assistantPositions.length;

  const calls: ModelCallRecord[] = [];
  let failedSince = 0;
  let nextInOrder = 0;
  for (const event of modelEvents.slice(0, MAX_RUN_MODEL_CALLS)) {
    const duration = durationOf(event);
    const call: ModelCallRecord = {
      ...(text(event.model, 200) && { model: text(event.model, 200) }),
      ...(event.timestamp && { startedAt: iso(event.timestamp) }),
      ...(duration !== undefined && { durationMs: duration }),
      ...(event.output?.usage?.input_tokens != null && { inputTokens: event.output.usage.input_tokens }),
      ...(event.output?.usage?.output_tokens != null && { outputTokens: event.output.usage.output_tokens }),
      ...(text(event.error, 4_000) && { error: text(event.error, 4_000) }),
    };
    calls.push(call);
    if (event.error) {
      failedSince += 1;
      continue;
    }
    const id = outputId(event);
    const messagePosition = matchedById
      ? id === undefined
        ? undefined
        : byId.get(id)
      : inOrder
        ? assistantPositions[nextInOrder++]?.position
        : undefined;
    if (messagePosition !== undefined)
      for (const earlier of calls.slice(calls.length - 1 - failedSince)) earlier.messagePosition = messagePosition;
    failedSince = 0;
  }
  return calls;
}

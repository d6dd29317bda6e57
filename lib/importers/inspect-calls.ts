// An Inspect sample's tool calls (from its tool events, else its messages), what became of each by
// the time the sample was scored, and its messages as the run's transcript. Pure.
import { z } from "zod";
import type { EffectRecord, MessageRecord, ToolCallRecord } from "../evaluations/run-record-schema";
import { eventSchema, iso, messageSchema, toolEventSchema } from "./inspect-log-schemas";
import { boundedContent, boundedMessages, contentText, roleOf } from "./transcript";

export interface Call {
  callId?: string;
  tool: string;
  arguments?: Record<string, unknown>;
  requestedAt?: string;
  completedAt?: string;
  /** undefined: nothing says the call returned. */
  error?: string | null;
  /** The sample ended with the model turn that asked for it (a limit, an error): no tool event or message says it ran, and none could come. */
  notExecuted?: boolean;
}

/**
 * A sample's tool events as calls. A call marked `failed` with no `error` raised an exception that ended
 * the sample: the sample's error is the only message the log has for it.
 */
function callsFromEvents(events: readonly z.infer<typeof eventSchema>[], sampleError: string | undefined): Call[] {
  return events.flatMap((raw) => {
    if (raw.event !== "tool") return [];
    const event = toolEventSchema.safeParse(raw);
    if (!event.success) return [];
    const { id, function: tool, arguments: args, error, completed, timestamp } = event.data;
    const raised = event.data.failed
      ? `failed: ${sampleError ? `${sampleError} (the sample's error: the call records none of its own)` : "Inspect marked the call failed and recorded no error"}`
      : null;
    const failed = error ? `${error.type ?? "error"}: ${error.message ?? ""}`.trim() : raised;
    return [
      {
        ...(id && { callId: id }),
        tool,
        ...(args && { arguments: args }),
        ...(timestamp && { requestedAt: iso(timestamp) }),
        ...(completed && { completedAt: iso(completed) }),
        ...(completed || failed ? { error: failed } : {}),
      },
    ];
  });
}

/**
 * Older logs (and logs without tool events, as the R package vitals writes them): assistant
 * `tool_calls`, answered by `tool` messages with the same `tool_call_id`; a tool message with no call
 * before it stands for its call. The calls of a last assistant message went unexecuted: Inspect runs a
 * turn's calls, and adds their tool messages, before anything else.
 */
function callsFromMessages(messages: readonly z.infer<typeof messageSchema>[]): Call[] {
  const calls: Call[] = [];
  const byId = new Map<string, Call>();
  const last = messages.at(-1);
  for (const message of messages) {
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) {
        const entry: Call = {
          ...(call.id && { callId: call.id }),
          tool: call.function,
          ...(call.arguments && { arguments: call.arguments }),
          ...(message === last && { notExecuted: true }),
        };
        calls.push(entry);
        if (call.id) byId.set(call.id, entry);
      }
    } else if (message.role === "tool") {
      const error = message.error ? `${message.error.type ?? "error"}: ${message.error.message ?? ""}`.trim() : null;
      const call = message.tool_call_id ? byId.get(message.tool_call_id) : undefined;
      if (call) call.error = error;
      else calls.push({ ...(message.tool_call_id && { callId: message.tool_call_id }), tool: message.function || "(unnamed tool)", error });
    }
  }
  return calls;
}

/** The sample's messages as the run's transcript: an assistant's calls by their ids, a tool message by the call it answers (its error as its text when it failed). */
export function transcriptOf(messages: readonly z.infer<typeof messageSchema>[]): MessageRecord[] {
  const transcript: MessageRecord[] = [];
  for (const message of messages) {
    const role = roleOf(message.role);
    if (!role) continue;
    const content = boundedContent(contentText(message.content));
    const calls = (message.tool_calls ?? []).map((call, i) => ({
      id: (call.id?.trim() || `call-${transcript.length}-${i}`).slice(0, 200),
      tool: (call.function.trim() || "(unnamed tool)").slice(0, 200),
      ...(call.arguments && { arguments: call.arguments }),
    }));
    const error = message.error?.message ? boundedContent(`${message.error.type ?? "error"}: ${message.error.message}`) : null;
    transcript.push({
      role,
      content: role === "tool" && error && content === "" ? error : content,
      ...(role === "assistant" && calls.length > 0 && { toolCalls: calls }),
      ...(role === "tool" && message.tool_call_id?.trim() && { toolCallId: message.tool_call_id.trim().slice(0, 200) }),
    });
  }
  return boundedMessages(transcript);
}

/**
 * A sample's calls: its tool events, and the calls its messages hold that no tool event records (never
 * one twice: a message call without an id is taken only when the timeline records no call at all).
 */
export function callsOfSample(
  timeline: readonly z.infer<typeof eventSchema>[] | undefined,
  messages: readonly z.infer<typeof messageSchema>[],
  sampleError: string | undefined,
): Call[] {
  const fromMessages = callsFromMessages(messages);
  const fromEvents = timeline ? callsFromEvents(timeline, sampleError) : [];
  if (fromEvents.length === 0) return fromMessages;
  const recorded = new Set(fromEvents.flatMap((c) => (c.callId ? [c.callId] : [])));
  return [...fromEvents, ...fromMessages.filter((c) => c.callId !== undefined && !recorded.has(c.callId))];
}

/** What an effect's status was when the sample was scored (an unscored sample: when its log ends). */
export function statusAtScoring(call: Call, scoredAt: string | undefined): EffectRecord["statusAtScoring"] {
  if (call.notExecuted && call.error === undefined) return "not_executed";
  if (call.error) return "failed";
  if (call.completedAt !== undefined)
    return scoredAt === undefined || Date.parse(call.completedAt) <= Date.parse(scoredAt) ? "completed" : "pending";
  return call.error === null ? "completed" : "unknown"; // from messages: a tool message answered it
}

/** Inspect's tool error types that mean the call was refused before it ran (a malformed call, one not approved or not permitted). */
const REFUSED_ERROR_TYPES = ["parsing", "approval", "permission"];

/** The call's outcome for the legal-action rate: none when no event or message answered it. */
export function callOutcome(call: Call): Pick<ToolCallRecord, "outcome" | "error"> {
  if (call.error === undefined) return {};
  if (call.error === null) return { outcome: "ok" };
  const refused = REFUSED_ERROR_TYPES.some((type) => call.error!.startsWith(`${type}:`));
  return { outcome: refused ? "rejected" : "error", error: call.error.slice(0, 4_000) || "error" };
}

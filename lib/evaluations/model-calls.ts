// A run's model calls (an Inspect model event, an OpenTelemetry chat span, the record's modelCalls):
// their sums kept on the run's row, and where the transcript shows each. Pure.
import { formatDuration } from "../format/time";
import type { ModelCallRecord } from "./run-record-schema";

/** A model call as read back: every field null where the harness did not say. */
export interface StoredModelCall {
  position: number;
  model: string | null;
  startedAt: string | null;
  durationMs: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  error: string | null;
  messagePosition: number | null;
}

export interface ModelCallTotals {
  /** Sum over the calls that report it; null when none does (unknown, not zero). */
  inputTokens: number | null;
  outputTokens: number | null;
  /** How many calls the run recorded; null when it recorded none. */
  modelCalls: number | null;
}

const sumKnown = (values: readonly (number | undefined)[]) => {
  const known = values.filter((v): v is number => v !== undefined);
  return known.length === 0 ? null : known.reduce((total, v) => total + v, 0);
};

/** The run's sums, written with it (evaluation_runs.input_tokens, output_tokens, model_calls). */
export function modelCallTotals(calls: readonly ModelCallRecord[] | undefined): ModelCallTotals {
  if (!calls || calls.length === 0) return { inputTokens: null, outputTokens: null, modelCalls: null };
  return {
    inputTokens: sumKnown(calls.map((c) => c.inputTokens)),
    outputTokens: sumKnown(calls.map((c) => c.outputTokens)),
    modelCalls: calls.length,
  };
}

/** A call's row (evaluation_run_model_calls), at its position in the run's order. */
export const modelCallRow = (runId: string, position: number, call: ModelCallRecord) => ({
  run_id: runId,
  position,
  model: call.model ?? null,
  started_at: call.startedAt ?? null,
  duration_ms: call.durationMs ?? null,
  input_tokens: call.inputTokens ?? null,
  output_tokens: call.outputTokens ?? null,
  error: call.error ?? null,
  message_position: call.messagePosition ?? null,
});

/**
 * Where the transcript shows each call: beside the message it produced (by its messagePosition), or,
 * for a call tied to no message (an OTLP span's, a harness that logs no conversation), in a list of
 * their own in time order (a call with no time last, in the run's order).
 */
export function placeModelCalls(calls: readonly StoredModelCall[]): {
  byMessage: Map<number, StoredModelCall[]>;
  unplaced: StoredModelCall[];
} {
  const byMessage = new Map<number, StoredModelCall[]>();
  const unplaced: StoredModelCall[] = [];
  for (const call of calls) {
    if (call.messagePosition === null) unplaced.push(call);
    else byMessage.set(call.messagePosition, [...(byMessage.get(call.messagePosition) ?? []), call]);
  }
  const at = (call: StoredModelCall) => (call.startedAt === null ? Number.POSITIVE_INFINITY : Date.parse(call.startedAt));
  unplaced.sort((a, b) => at(a) - at(b) || a.position - b.position);
  return { byMessage, unplaced };
}

const count = (n: number) => n.toLocaleString("en-US");

/** A call in words: its model, tokens in and out, and how long it took (each "?" where unknown); a failed attempt's error. */
export function modelCallText(call: StoredModelCall): string {
  const tokens =
    call.inputTokens === null && call.outputTokens === null
      ? "tokens not recorded"
      : `${call.inputTokens === null ? "?" : count(call.inputTokens)} tokens in, ${call.outputTokens === null ? "?" : count(call.outputTokens)} out`;
  const duration = call.durationMs === null ? "duration not recorded" : formatDuration(call.durationMs);
  const failed = call.error === null ? "" : `; failed: ${call.error}`;
  return `${call.model ?? "model not named"} · ${tokens} · ${duration}${failed}`;
}

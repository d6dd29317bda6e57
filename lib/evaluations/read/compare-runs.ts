// Two runs side by side: their transcripts aligned by turn, each tool call beside the call of the
// other run it matches, with the effect it made and how the audit counts it. Pure.
import { z } from "zod";
import type { MessageRecord } from "../run-record-schema";

const runId = (name: "a" | "b", which: string) =>
  z
    .string(`${name} is required: the external id of the ${which} run to compare`)
    .trim()
    .min(1, `${name} must not be empty: give the external id of the ${which} run to compare`)
    .max(200, `${name} must be at most 200 characters (a run's external id)`);

/**
 * The query of /evaluations/{id}/compare-runs: `a` and `b`, the two runs' external ids. The runs
 * list's checkboxes send `runs` twice instead; the page turns them into `a` and `b`.
 */
export const compareRunsQuerySchema = z.object({ a: runId("a", "first"), b: runId("b", "second") });

/** The runs list's "Compare": exactly two ticked runs, as `a` and `b`. */
export const tickedRunsSchema = z
  .array(z.string().trim().min(1).max(200))
  .length(2, "runs: tick exactly two runs to compare")
  .transform(([a, b]) => ({ a: a!, b: b! }));

/**
 * Which two runs a compare-runs request names: `a` and `b`, or the runs list's two ticked `runs`, which the page
 * turns into an address with `a` and `b` (`redirect`, its query); otherwise why not.
 */
export function runsToCompare(
  search: Record<string, string | string[] | undefined>,
): { status: "ok"; a: string; b: string } | { status: "redirect"; query: string } | { status: "problem"; message: string } {
  if (search.runs !== undefined && search.a === undefined && search.b === undefined) {
    const ticked = tickedRunsSchema.safeParse([search.runs].flat());
    if (ticked.success) return { status: "redirect", query: new URLSearchParams(ticked.data).toString() };
    return { status: "problem", message: `${ticked.error.issues[0]!.message} (${[search.runs].flat().length} ticked)` };
  }
  const parsed = compareRunsQuerySchema.safeParse(search);
  return parsed.success
    ? { status: "ok", ...parsed.data }
    : { status: "problem", message: parsed.error.issues.map((i) => i.message).join("; ") };
}

/** The effect a tool call made, as the audit counts it. */
export interface CallEffect {
  effectId: string;
  statusAtScoring: string;
  /** null: terminal at scoring (or irrelevant); else why it was still open (an unresolved reason). */
  openReason: string | null;
}

export interface ComparedCall {
  id: string;
  tool: string;
  arguments: unknown;
  effect: CallEffect | null;
}

export interface TurnSide {
  /** The turn's messages, with their positions in the run's transcript. */
  messages: (MessageRecord & { position: number })[];
}

/** One tool of a turn: the k-th call of that tool in a, beside the k-th in b (either may be missing). */
export interface CallPair {
  tool: string;
  a: ComparedCall | null;
  b: ComparedCall | null;
  /** What differs between the two calls, in words; empty when they agree. */
  differences: string[];
}

export interface AlignedTurn {
  /** 0 is the messages before the first assistant message (the prompt); turn n starts at the n-th assistant message. */
  index: number;
  a: TurnSide | null;
  b: TurnSide | null;
  calls: CallPair[];
  /** What differs in the turn's text and calls, in words; empty when the turn is the same in both runs. */
  differences: string[];
}

type Positioned = MessageRecord & { position: number };

/**
 * Turns of a transcript: the messages before the first assistant message are turn 0; each assistant
 * message starts the next turn, which holds it and the tool results and user messages after it.
 */
export function turnsOf(messages: readonly Positioned[]): Positioned[][] {
  const turns: Positioned[][] = [[]];
  for (const message of messages) {
    if (message.role === "assistant") turns.push([message]);
    else turns.at(-1)!.push(message);
  }
  // A transcript that opens with an assistant message has no prompt turn; keep turn 0 empty rather than shift the numbering.
  return turns;
}

/** The effect each call made: the one with its call id, else the k-th effect of its tool for the k-th call of that tool. */
export function effectsOfCalls<E extends { callId: string | null; tool: string }>(
  calls: readonly { id: string; tool: string }[],
  effects: readonly E[],
): Map<string, E> {
  const byCallId = new Map(effects.filter((e) => e.callId !== null).map((e) => [e.callId!, e]));
  const unmatched = new Map<string, E[]>();
  for (const effect of effects) if (effect.callId === null) unmatched.set(effect.tool, [...(unmatched.get(effect.tool) ?? []), effect]);
  const found = new Map<string, E>();
  const seen = new Map<string, number>();
  for (const call of calls) {
    const own = byCallId.get(call.id);
    if (own) {
      found.set(call.id, own);
      continue;
    }
    const k = seen.get(call.tool) ?? 0;
    seen.set(call.tool, k + 1);
    const effect = unmatched.get(call.tool)?.[k];
    if (effect) found.set(call.id, effect);
  }
  return found;
}

const sameJson = (x: unknown, y: unknown) => JSON.stringify(x ?? null) === JSON.stringify(y ?? null);
const auditText = (effect: CallEffect | null) =>
  effect === null ? "no effect" : effect.openReason === null ? "terminal at scoring" : `open at scoring (${effect.openReason})`;

/** What differs between two matched calls (or that one run made no such call). */
export function callDifferences(a: ComparedCall | null, b: ComparedCall | null): string[] {
  if (a === null || b === null) return [`only run ${a ? "a" : "b"} makes this call`];
  const differences: string[] = [];
  if (!sameJson(a.arguments, b.arguments)) differences.push("arguments differ");
  if ((a.effect === null) !== (b.effect === null)) differences.push(`only run ${a.effect ? "a" : "b"}'s call made an effect`);
  else if (a.effect && b.effect) {
    if (a.effect.statusAtScoring !== b.effect.statusAtScoring)
      differences.push(`status at scoring: ${a.effect.statusAtScoring} in a, ${b.effect.statusAtScoring} in b`);
    if (a.effect.openReason !== b.effect.openReason) differences.push(`audit: ${auditText(a.effect)} in a, ${auditText(b.effect)} in b`);
  }
  return differences;
}

/** The turn's calls paired by tool and order: the k-th call of a tool in a with the k-th of that tool in b, in a's order then b's extras. */
export function pairCalls(a: readonly ComparedCall[], b: readonly ComparedCall[]): CallPair[] {
  const kth = (calls: readonly ComparedCall[]) => {
    const seen = new Map<string, number>();
    return calls.map((call) => {
      const k = seen.get(call.tool) ?? 0;
      seen.set(call.tool, k + 1);
      return { key: `${call.tool}\u0000${k}`, call };
    });
  };
  const inB = new Map(kth(b).map(({ key, call }) => [key, call]));
  const pairs: CallPair[] = [];
  for (const { key, call } of kth(a)) {
    const other = inB.get(key) ?? null;
    inB.delete(key);
    pairs.push({ tool: call.tool, a: call, b: other, differences: callDifferences(call, other) });
  }
  for (const call of inB.values()) pairs.push({ tool: call.tool, a: null, b: call, differences: callDifferences(null, call) });
  return pairs;
}

const textOf = (turn: readonly Positioned[]) => turn.map((m) => `${m.role}\u0000${m.content}\u0000${m.toolCallId ? "tool" : ""}`);

/**
 * The two transcripts aligned by turn index, each turn's calls paired by tool and order with the
 * effect each made (`callEffect(run, call)`), and what differs marked in words.
 */
export function alignRuns(
  a: readonly Positioned[],
  b: readonly Positioned[],
  callEffect: (run: "a" | "b", callId: string) => CallEffect | null,
): AlignedTurn[] {
  const turnsA = turnsOf(a);
  const turnsB = turnsOf(b);
  const calls = (run: "a" | "b", turn: readonly Positioned[] | undefined): ComparedCall[] =>
    (turn ?? []).flatMap((m) =>
      (m.toolCalls ?? []).map((call) => ({ id: call.id, tool: call.tool, arguments: call.arguments, effect: callEffect(run, call.id) })),
    );
  const aligned: AlignedTurn[] = [];
  for (let index = 0; index < Math.max(turnsA.length, turnsB.length); index++) {
    const turnA = turnsA[index];
    const turnB = turnsB[index];
    // An empty prompt turn on both sides is no turn at all.
    if (index === 0 && !turnA?.length && !turnB?.length) continue;
    const pairs = pairCalls(calls("a", turnA), calls("b", turnB));
    const differences: string[] = [];
    if (!turnA || !turnB) differences.push(`only run ${turnA ? "a" : "b"} has this turn`);
    else {
      const [textA, textB] = [textOf(turnA), textOf(turnB)];
      if (textA.length !== textB.length) differences.push(`${turnA.length} messages in a, ${turnB.length} in b`);
      else if (textA.some((t, i) => t !== textB[i])) differences.push("the messages' text differs");
    }
    const differingCalls = pairs.filter((p) => p.differences.length > 0).length;
    if (differingCalls > 0) differences.push(`${differingCalls} of ${pairs.length} tool calls differ`);
    aligned.push({
      index,
      a: turnA ? { messages: turnA } : null,
      b: turnB ? { messages: turnB } : null,
      calls: pairs,
      differences,
    });
  }
  return aligned;
}

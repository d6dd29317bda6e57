import { describe, expect, it } from "vitest";
import {
  alignRuns,
  callDifferences,
  effectsOfCalls,
  pairCalls,
  runsToCompare,
  turnsOf,
  type CallEffect,
  type ComparedCall,
} from "./compare-runs";
import type { MessageRecord } from "../run-record-schema";

const transcript = (...messages: MessageRecord[]) => messages.map((m, position) => ({ ...m, position }));
const user = (content: string): MessageRecord => ({ role: "user", content });
const assistant = (content: string, ...calls: [id: string, tool: string, args?: unknown][]): MessageRecord => ({
  role: "assistant",
  content,
  ...(calls.length && { toolCalls: calls.map(([id, tool, args]) => ({ id, tool, arguments: args })) }),
});
const tool = (toolCallId: string, content: string): MessageRecord => ({ role: "tool", content, toolCallId });
const call = (id: string, name: string, effect: CallEffect | null = null, args: unknown = {}): ComparedCall => ({
  id,
  tool: name,
  arguments: args,
  effect,
});

describe("turnsOf", () => {
  it("puts the prompt in turn 0 and starts a turn at each assistant message, with the tool results after it", () => {
    const turns = turnsOf(transcript(user("go"), assistant("a", ["c1", "t"]), tool("c1", "ok"), assistant("done")));
    expect(turns.map((t) => t.map((m) => m.position))).toEqual([[0], [1, 2], [3]]);
  });
  it("keeps turn 0 empty when the transcript opens with an assistant message, so turn numbers stay comparable", () => {
    expect(turnsOf(transcript(assistant("hi"))).map((t) => t.length)).toEqual([0, 1]);
  });
});

describe("effectsOfCalls", () => {
  it("matches an effect by its call id, else the k-th effect of a tool to the k-th call of that tool", () => {
    const effects = [
      { effectId: "e1", callId: null, tool: "pay" },
      { effectId: "e2", callId: "x9", tool: "send" },
      { effectId: "e3", callId: null, tool: "pay" },
    ];
    const found = effectsOfCalls(
      [
        { id: "c1", tool: "pay" },
        { id: "x9", tool: "send" },
        { id: "c3", tool: "pay" },
        { id: "c4", tool: "pay" },
      ],
      effects,
    );
    expect([...found].map(([id, e]) => `${id}=${e.effectId}`)).toEqual(["c1=e1", "x9=e2", "c3=e3"]);
  });
});

describe("pairCalls", () => {
  it("pairs calls by tool name and order, a's order first, b's extra calls last", () => {
    const pairs = pairCalls(
      [call("a1", "read"), call("a2", "pay"), call("a3", "read")],
      [call("b1", "pay"), call("b2", "read"), call("b3", "mail"), call("b4", "pay")],
    );
    expect(pairs.map((p) => `${p.tool}:${p.a?.id ?? "-"}/${p.b?.id ?? "-"}`)).toEqual([
      "read:a1/b2",
      "pay:a2/b1",
      "read:a3/-",
      "mail:-/b3",
      "pay:-/b4",
    ]);
    expect(pairs[2]!.differences).toEqual(["only run a makes this call"]);
    expect(pairs[3]!.differences).toEqual(["only run b makes this call"]);
  });
});

describe("callDifferences", () => {
  const pending: CallEffect = { effectId: "e1", statusAtScoring: "pending", openReason: "pending_at_scoring" };
  const done: CallEffect = { effectId: "e1", statusAtScoring: "completed", openReason: null };
  it("is empty when the arguments and the effect's status and audit agree", () => {
    expect(callDifferences(call("a", "pay", done, { to: 1 }), call("b", "pay", done, { to: 1 }))).toEqual([]);
  });
  it("names differing arguments, status at scoring and audit", () => {
    expect(callDifferences(call("a", "pay", pending, { to: 1 }), call("b", "pay", done, { to: 2 }))).toEqual([
      "arguments differ",
      "status at scoring: pending in a, completed in b",
      "audit: open at scoring (pending_at_scoring) in a, terminal at scoring in b",
    ]);
  });
  it("names the run whose call made an effect when the other made none", () => {
    expect(callDifferences(call("a", "pay"), call("b", "pay", done))).toEqual(["only run b's call made an effect"]);
  });
});

describe("alignRuns", () => {
  it("aligns by turn index, marks the turns that differ and leaves equal turns unmarked", () => {
    const a = transcript(user("pay bob"), assistant("", ["c1", "pay", { to: "bob" }]), tool("c1", "queued"), assistant("paid"));
    const b = transcript(
      user("pay bob"),
      assistant("", ["d1", "pay", { to: "bob" }]),
      tool("d1", "queued"),
      assistant("paid"),
      assistant("bye"),
    );
    const effects: Record<string, CallEffect> = {
      c1: { effectId: "e1", statusAtScoring: "pending", openReason: "pending_at_scoring" },
      d1: { effectId: "e1", statusAtScoring: "completed", openReason: null },
    };
    const turns = alignRuns(a, b, (_run, id) => effects[id] ?? null);
    expect(turns.map((t) => t.index)).toEqual([0, 1, 2, 3]);
    expect(turns[0]!.differences).toEqual([]);
    expect(turns[1]!.calls).toHaveLength(1);
    expect(turns[1]!.calls[0]!.differences).toEqual([
      "status at scoring: pending in a, completed in b",
      "audit: open at scoring (pending_at_scoring) in a, terminal at scoring in b",
    ]);
    expect(turns[1]!.differences).toEqual(["1 of 1 tool calls differ"]);
    expect(turns[2]!.differences).toEqual([]);
    expect(turns[3]!.a).toBeNull();
    expect(turns[3]!.differences).toEqual(["only run b has this turn"]);
  });
  it("marks a turn whose text differs, and drops an empty prompt turn on both sides", () => {
    const turns = alignRuns(transcript(assistant("yes")), transcript(assistant("no")), () => null);
    expect(turns.map((t) => [t.index, t.differences])).toEqual([[1, ["the messages' text differs"]]]);
  });
  it("aligns two empty transcripts to no turn", () => {
    expect(alignRuns([], [], () => null)).toEqual([]);
  });
});

describe("runsToCompare", () => {
  it("takes a and b, and turns two ticked runs into an address with a and b", () => {
    expect(runsToCompare({ a: " r1 ", b: "r2" })).toEqual({ status: "ok", a: "r1", b: "r2" });
    expect(runsToCompare({ runs: ["r 1", "r2"] })).toEqual({ status: "redirect", query: "a=r+1&b=r2" });
  });

  it("names what is missing: a run not given, or not exactly two ticked", () => {
    expect(runsToCompare({ a: "r1" })).toEqual({
      status: "problem",
      message: "b is required: the external id of the second run to compare",
    });
    expect(runsToCompare({ runs: "r1" })).toEqual({ status: "problem", message: "runs: tick exactly two runs to compare (1 ticked)" });
    expect(runsToCompare({ runs: ["r1", "r2", "r3"] })).toMatchObject({
      status: "problem",
      message: expect.stringContaining("(3 ticked)"),
    });
  });
});

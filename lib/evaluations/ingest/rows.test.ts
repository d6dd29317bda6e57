import { describe, expect, it } from "vitest";
import { at, SURFACE, WORKED_POLICY, workedExample } from "../../testing/evaluation-example";
import { callSurfacer, toolClassifier } from "../policy";
import type { RunRecord } from "../run-record-schema";
import { childRows, policyTouches, runColumns, surfacesOf, withDerivedTouches } from "./rows";

const classOf = toolClassifier(WORKED_POLICY);
const worked = (i: number) => workedExample()[i] as RunRecord;
const valid = (run: RunRecord) => ({ index: 0, run, hash: "h" });

describe("a run's own columns", () => {
  it("audit finality from the record, and from the resolutions posted for it earlier", () => {
    const r1 = worked(0);
    expect(runColumns(valid(r1), classOf, new Map())).toMatchObject({
      external_id: "r1",
      finality: "unresolved",
      unresolved_reason: "pending_at_scoring",
      unresolved_effect_id: "e1",
      unresolved_tool: "bank.transfer",
      content_hash: "h",
    });
    const posted = new Map([["r1\u0000e1", [{ status: "completed" as const, atMs: Date.parse(at(8)) }]]]);
    expect(runColumns(valid(r1), classOf, posted)).toMatchObject({ finality: "unresolved", unresolved_reason: "resolved_after_scoring" });
    // r2's transfer completed (by its record) before it was scored: final.
    expect(runColumns(valid(worked(1)), classOf, new Map())).toMatchObject({
      finality: "final",
      unresolved_reason: null,
      unresolved_effect_id: null,
      unresolved_tool: null,
    });
  });

  it("mark a disagreement between endpoint and terminal labels, and an unscored run as such", () => {
    expect(runColumns(valid(worked(1)), classOf, new Map()).disagreement).toBe(true);
    expect(runColumns(valid(worked(2)), classOf, new Map()).disagreement).toBe(false);
    const unscored: RunRecord = { externalId: "u", taskId: "t", startedAt: at(0), unscoredReason: "no score" };
    expect(runColumns(valid(unscored), classOf, new Map())).toMatchObject({
      finality: "unscored",
      scored_at: null,
      endpoint_label: null,
      unscored_reason: "no score",
      disagreement: false,
    });
  });
});

describe("a run's children", () => {
  it("are its effects, its record's resolutions, its touches with scoredOn as score touches, its resets and their canaries", () => {
    const run: RunRecord = {
      ...worked(1),
      scoredOn: ["grader:db"],
      resets: [
        {
          surface: SURFACE,
          at: at(14),
          verified: true,
          canary: { surface: SURFACE, planted: "token", found: false, evidence: "searched" },
        },
        { surface: "db:other", at: at(14), verified: false },
      ],
    };
    const rows = childRows("ev", "42", run, []);
    expect(rows.evaluation_effects.map((e) => [e.run_id, e.evaluation_id, e.effect_id, e.surface, e.public])).toEqual([
      ["42", "ev", "e2", SURFACE, false],
    ]);
    expect(rows.evaluation_effect_resolutions).toEqual([
      {
        run_id: "42",
        evaluation_id: "ev",
        effect_id: "e2",
        status: "completed",
        at: at(13),
        evidence: { ledger: 8813 },
        verified_by: null,
        source: "record",
      },
    ]);
    expect(rows.evaluation_touches).toEqual([
      { run_id: "42", evaluation_id: "ev", surface: SURFACE, op: "read", at: at(11), public: false, derived: false },
      { run_id: "42", evaluation_id: "ev", surface: "grader:db", op: "score", at: at(15), public: false, derived: false },
    ]);
    expect(rows.evaluation_resets.map((r) => [r.surface, r.verified])).toEqual([
      [SURFACE, true],
      ["db:other", false],
    ]);
    expect(rows.evaluation_reset_canaries).toEqual([
      {
        run_id: "42",
        evaluation_id: "ev",
        surface: SURFACE,
        reset_at: at(14),
        planted: "token",
        found: false,
        evidence: "searched",
        source: "record",
      },
    ]);
    expect(surfacesOf(run, [])).toEqual([SURFACE, SURFACE, SURFACE, "db:other", "grader:db"]);
  });

  it("of a run without resolutions, resets or scoredOn are its effects and touches only", () => {
    const rows = childRows("ev", "7", worked(0), []);
    expect(Object.fromEntries(Object.entries(rows).map(([table, r]) => [table, r.length]))).toEqual({
      evaluation_effects: 1,
      evaluation_effect_resolutions: 0,
      evaluation_touches: 0,
      evaluation_resets: 0,
      evaluation_reset_canaries: 0,
      evaluation_run_messages: 0,
      evaluation_run_model_calls: 0,
      evaluation_run_traces: 0,
    });
  });

  it("of a run with model calls are one row a call in its order, unknown fields null; its row has their sums", () => {
    const run = {
      ...worked(0),
      modelCalls: [
        { model: "gpt-4o", startedAt: "2026-12-01T10:00:01.000Z", durationMs: 812.5, inputTokens: 100, outputTokens: 7 },
        { model: "gpt-4o", error: "rate limited" },
        { inputTokens: 40 },
      ],
    };
    expect(childRows("ev", "7", run, []).evaluation_run_model_calls).toEqual([
      {
        run_id: "7",
        position: 0,
        model: "gpt-4o",
        started_at: "2026-12-01T10:00:01.000Z",
        duration_ms: 812.5,
        input_tokens: 100,
        output_tokens: 7,
        error: null,
        message_position: null,
      },
      {
        run_id: "7",
        position: 1,
        model: "gpt-4o",
        started_at: null,
        duration_ms: null,
        input_tokens: null,
        output_tokens: null,
        error: "rate limited",
        message_position: null,
      },
      {
        run_id: "7",
        position: 2,
        model: null,
        started_at: null,
        duration_ms: null,
        input_tokens: 40,
        output_tokens: null,
        error: null,
        message_position: null,
      },
    ]);
    expect(runColumns(valid(run), classOf, new Map())).toMatchObject({ input_tokens: 140, output_tokens: 7, model_calls: 3 });
    expect(runColumns(valid(worked(0)), classOf, new Map())).toMatchObject({
      input_tokens: null,
      output_tokens: null,
      model_calls: null,
    });
  });

  it("of a run with calls is one trace link, its trace left to a pass; a run without calls, or with none listed, has none", () => {
    const calls = [{ tool: "read_file", arguments: { path: "a" } }];
    expect(childRows("ev", "7", { ...worked(0), toolCalls: calls }, []).evaluation_run_traces).toEqual([
      { run_id: "7", evaluation_id: "ev" },
    ]);
    expect(childRows("ev", "7", { ...worked(0), toolCalls: [] }, []).evaluation_run_traces).toEqual([]);
    expect(childRows("ev", "7", { ...worked(0), toolCalls: undefined }, []).evaluation_run_traces).toEqual([]);
  });

  it("of a run with messages are its messages in order, in chunks of 50 (a short conversation is one row)", () => {
    const messages = Array.from({ length: 120 }, (_, i) =>
      i % 2 === 0
        ? { role: "assistant" as const, content: `turn ${i}`, toolCalls: [{ id: `c${i}`, tool: "send_money", arguments: { amount: i } }] }
        : { role: "tool" as const, content: `done ${i}`, toolCallId: `c${i - 1}` },
    );
    const rows = childRows("ev", "9", { ...worked(0), messages }, []);
    expect(rows.evaluation_run_messages.map((r) => [r.run_id, r.chunk, r.first_position, r.count])).toEqual([
      ["9", 0, 0, 50],
      ["9", 1, 50, 50],
      ["9", 2, 100, 20],
    ]);
    expect(rows.evaluation_run_messages.flatMap((r) => r.messages as unknown[])).toEqual(messages);
    expect(childRows("ev", "9", { ...worked(0), messages: messages.slice(0, 3) }, []).evaluation_run_messages).toEqual([
      { run_id: "9", chunk: 0, first_position: 0, count: 3, messages: messages.slice(0, 3) },
    ]);
  });
});

describe("the touches a run's calls make by their tools' templates", () => {
  const surfacer = callSurfacer({
    tools: {
      write_file: { class: "sync_confirmed", writes: "fs:{path}" },
      edit_file: { class: "sync_confirmed", writes: "fs:{path}" },
      read_text_file: { class: "read_only", reads: "fs:{path}" },
    },
  });
  const run = (fields: Partial<RunRecord>): RunRecord => ({
    externalId: "fs-1",
    taskId: "t",
    startedAt: at(0),
    endedAt: at(9),
    scoredAt: at(10),
    endpointLabel: "success",
    ...fields,
  });
  const effect = (effectId: string, tool: string, requested: number, args?: Record<string, unknown>, callId?: string) => ({
    effectId,
    tool,
    ...(callId && { callId }),
    ...(args && { arguments: args }),
    requestedAt: at(requested),
    statusAtScoring: "completed" as const,
  });

  it("are a write or read at each effect's request, one per call however many records it has", () => {
    const recorded = run({
      effects: [
        effect("e1", "write_file", 1, { path: "a.txt", content: "balance=100" }, "c1"),
        effect("e2", "edit_file", 2, { path: "a.txt" }, "c2"),
      ],
      toolCalls: [
        { callId: "c1", tool: "write_file", at: at(1), arguments: { path: "a.txt" } },
        { callId: "c2", tool: "edit_file", at: at(2), arguments: { path: "a.txt" } },
        { callId: "c3", tool: "read_text_file", at: at(3), arguments: { path: "a.txt" } },
      ],
    });
    const derived = policyTouches(recorded, surfacer);
    expect(derived).toEqual([
      { surface: "fs:a.txt", op: "write", at: at(1) },
      { surface: "fs:a.txt", op: "write", at: at(2) },
      { surface: "fs:a.txt", op: "read", at: at(3) },
    ]);
    const rows = childRows("ev", "1", recorded, derived).evaluation_touches;
    expect(rows.map((t) => [t.op, t.derived])).toEqual([
      ["write", true],
      ["write", true],
      ["read", true],
    ]);
    expect(surfacesOf(recorded, derived)).toEqual(["fs:a.txt", "fs:a.txt", "fs:a.txt"]);
    expect(withDerivedTouches(recorded, derived).touches).toEqual(derived);
  });

  it("pair calls and effects without callIds by their order per tool, and touch nothing for a call never run", () => {
    // The live record's effects and calls, without callIds: each call is its effect's.
    const live = run({
      effects: [
        effect("e1", "write_file", 1, { path: "a.txt" }),
        { ...effect("e2", "write_file", 2, { path: "b.txt" }), statusAtScoring: "not_executed" },
      ],
      toolCalls: [
        { tool: "write_file", at: at(1), arguments: { path: "a.txt" } },
        { tool: "write_file", at: at(2), arguments: { path: "b.txt" } },
        { tool: "write_file", arguments: { path: "c.txt" } },
        { tool: "read_text_file", arguments: { path: "a.txt" }, outcome: "rejected" },
      ],
    });
    // The third call has no effect and no time: a write at the run's start.
    expect(policyTouches(live, surfacer)).toEqual([
      { surface: "fs:a.txt", op: "write", at: at(1) },
      { surface: "fs:c.txt", op: "write", at: at(0) },
    ]);
  });

  it("place a call with no time of its own where it connects the most: a read at the run's end", () => {
    // AgentDojo logs read-only calls as tool calls alone, untimed.
    const imported = run({ endedAt: undefined, toolCalls: [{ tool: "read_text_file", arguments: { path: "a.txt" } }] });
    expect(policyTouches(imported, surfacer)).toEqual([{ surface: "fs:a.txt", op: "read", at: at(10) }]);
  });

  it("are none for a call without the argument, and a public effect's are public", () => {
    const recorded = run({
      effects: [
        { ...effect("e1", "write_file", 1, { file: "a.txt" }), public: true },
        { ...effect("e2", "edit_file", 2, { path: "p" }), public: true },
      ],
    });
    expect(policyTouches(recorded, surfacer)).toEqual([{ surface: "fs:p", op: "write", at: at(2), public: true }]);
  });
});

import { describe, expect, it } from "vitest";
import { auditFinality, type FinalityEffect } from "../finality";
import { runRecordSchema, type RunRecord } from "../run-record-schema";
import type { ToolClass } from "../vocabulary";
import { seededRandom } from "../../testing/seeded-random";
import { at, empty, events, head, requested, status, T0 } from "../../testing/live-timeline-events";
import { admitEvents, liveRunRecord } from "./timeline";

// The run record a live run's admitted events make (timeline.ts's liveRunRecord), and its model calls.

/** The finality ingestion computes from a record (lib/evaluations/ingest/rows.ts does the same). */
const finalityOf = (record: RunRecord, cls: ToolClass = "async_handle") =>
  auditFinality(
    {
      scoredAtMs: Date.parse(record.scoredAt!),
      effects: record.effects!.map((e): FinalityEffect => ({
        effectId: e.effectId,
        tool: e.tool,
        handle: e.handle ?? null,
        requestedAtMs: Date.parse(e.requestedAt),
        statusAtScoring: e.statusAtScoring,
        resolutions: e.resolution ? [{ status: e.resolution.status, atMs: Date.parse(e.resolution.at) }] : [],
      })),
    },
    () => cls,
  );

describe("liveRunRecord", () => {
  const transfer = [requested("r", "t1", 1, { handle: "task-77", surface: "acct:alice" }), status("s1", "t1", "pending", 2)];

  it("derives the status at scoring from the timeline: a transfer still working when scored is pending_at_scoring", () => {
    const record = liveRunRecord(head, events(transfer), { scoredAtMs: T0 + 3000, endpointLabel: "success" });
    expect(runRecordSchema.parse(record)).toEqual(record);
    expect(record.effects![0]).toMatchObject({
      statusAtScoring: "pending",
      acknowledgedAt: at(2),
      handle: "task-77",
      surface: "acct:alice",
    });
    expect(record.effects![0]!.resolution).toBeUndefined();
    expect(finalityOf(record)).toEqual({ finality: "unresolved", reason: "pending_at_scoring", effectId: "t1", tool: "send_money" });
  });

  it("takes the first terminal status that carries evidence as the resolution, with its source: after scoring it is resolved_after_scoring", () => {
    const record = liveRunRecord(
      head,
      events([...transfer, { ...status("s2", "t1", "completed", 9), evidence: "ledger 8812", source: "reconciler" }]),
      { scoredAtMs: T0 + 3000, endpointLabel: "success" },
    );
    expect(record.effects![0]).toMatchObject({
      statusAtScoring: "pending",
      resolution: { status: "completed", at: at(9), evidence: "ledger 8812", verifiedBy: "reconciler" },
    });
    expect(finalityOf(record)).toMatchObject({ finality: "unresolved", reason: "resolved_after_scoring" });
  });

  it("is final when every effect's evidence was terminal by the scoring time, whatever its class", () => {
    const record = liveRunRecord(head, events([...transfer, { ...status("s2", "t1", "completed", 2.5), evidence: { ledger: 8812 } }]), {
      scoredAtMs: T0 + 3000,
      endpointLabel: "failure",
      score: 0.25,
    });
    expect(record.effects![0]).toMatchObject({ statusAtScoring: "completed", resolution: { verifiedBy: "live-run event" } });
    for (const cls of ["async_handle", "sync_confirmed", "external", "unclassified"] as const)
      expect(finalityOf(record, cls), cls).toEqual({ finality: "final" });
    expect(record).toMatchObject({ scoredAt: at(3), endpointLabel: "failure", score: 0.25 });
  });

  it("keeps a terminal status without evidence as the harness's word: it closes only a sync_confirmed effect", () => {
    const record = liveRunRecord(head, events([...transfer, { ...status("s2", "t1", "completed", 2.5), detail: "tool said done" }]), {
      scoredAtMs: T0 + 3000,
      endpointLabel: "success",
    });
    expect(record.effects![0]).toMatchObject({ statusAtScoring: "completed", notes: "tool said done" });
    expect(record.effects![0]!.resolution).toBeUndefined();
    expect(finalityOf(record, "sync_confirmed")).toEqual({ finality: "final" });
    // The handle is there (task-77), but nothing was read by it.
    expect(finalityOf(record, "async_handle")).toMatchObject({ finality: "unresolved", reason: "never_resolved" });
    expect(finalityOf(record, "external")).toMatchObject({ finality: "unresolved", reason: "never_resolved" });
    expect(finalityOf(record, "unclassified")).toMatchObject({ finality: "unresolved", reason: "unclassified_tool" });
    expect(finalityOf(record, "read_only")).toEqual({ finality: "final" });
  });

  it("takes evidence that could not tell (unknown) as the resolution when no terminal evidence came", () => {
    const record = liveRunRecord(
      head,
      events([
        ...transfer,
        { ...status("s2", "t1", "unknown", 2.5), evidence: "ledger unreachable" },
        status("s3", "t1", "completed", 2.8),
      ]),
      { scoredAtMs: T0 + 3000, endpointLabel: "success" },
    );
    expect(record.effects![0]!.resolution).toMatchObject({ status: "unknown", evidence: "ledger unreachable" });
    expect(finalityOf(record)).toMatchObject({ finality: "unresolved", reason: "unverifiable" });
  });

  it("takes an effect's handle from its first status that gives one when its request had none (an MCP task's id)", () => {
    const record = liveRunRecord(
      head,
      events([
        requested("r", "t1", 1),
        { ...status("s1", "t1", "pending", 2), handle: "task-9" },
        { ...status("s2", "t1", "completed", 3), handle: "other", evidence: { task: "task-9" } },
      ]),
      { scoredAtMs: T0 + 4000, endpointLabel: "success" },
    );
    expect(record.effects![0]!.handle).toBe("task-9");
    expect(finalityOf(record)).toEqual({ finality: "final" });
  });

  it("calls an effect with no status yet pending, and keeps touches, resets and tool calls in time order", () => {
    const record = liveRunRecord(
      head,
      events([
        { eventId: "z", type: "reset", at: at(5), surface: "acct:alice", verified: true, evidence: "balance read back" },
        { eventId: "y", type: "touch", at: at(4), surface: "acct:alice", op: "read" },
        requested("x", "t2", 3, { callId: "call-2" }),
      ]),
      { scoredAtMs: T0 + 6000, endpointLabel: "success" },
    );
    expect(record.effects!.map((e) => [e.effectId, e.statusAtScoring, e.tracePosition])).toEqual([["t2", "pending", 0]]);
    expect(record.toolCalls).toEqual([{ callId: "call-2", tool: "send_money", at: at(3) }]);
    expect(record.touches).toEqual([{ surface: "acct:alice", op: "read", at: at(4) }]);
    expect(record.resets).toEqual([{ surface: "acct:alice", at: at(5), verified: true, evidence: "balance read back" }]);
  });

  it("starts the run at its earliest event when the harness's clock ran behind, so the record stays valid", () => {
    const record = liveRunRecord({ ...head, startedAtMs: T0 + 10_000 }, events(transfer), {
      scoredAtMs: T0 + 20_000,
      endpointLabel: "success",
    });
    expect(record.startedAt).toBe(at(1));
    expect(runRecordSchema.safeParse(record).success).toBe(true);
  });

  it("writes every time in UTC as toISOString does, whichever offset an event was sent with", () => {
    const record = liveRunRecord(
      head,
      events([
        { ...requested("r", "t1", 1), at: "2026-12-04T11:00:01+01:00" },
        { ...status("s1", "t1", "completed", 2), at: "2026-12-04T05:00:02.5-05:00", evidence: "read back" },
        { eventId: "y", type: "touch", at: at(4), surface: "acct:alice", op: "read" },
      ]),
      { scoredAtMs: T0 + 6000, endpointLabel: "success" },
    );
    expect(record.effects![0]).toMatchObject({ requestedAt: at(1), acknowledgedAt: at(2.5), resolution: { at: at(2.5) } });
    expect(record.toolCalls![0]!.at).toBe(at(1));
    expect(record.touches![0]!.at).toBe(at(4));
  });

  it("stores a run closed without a score as unscored, its effects at their latest status", () => {
    const record = liveRunRecord(head, events([...transfer, status("s2", "t1", "failed", 9)]), { unscoredReason: "TimeoutError" });
    expect(runRecordSchema.parse(record)).toMatchObject({ unscoredReason: "TimeoutError" });
    expect(record.scoredAt).toBeUndefined();
    expect(record.effects![0]!.statusAtScoring).toBe("failed");
  });
});

describe("liveRunRecord over random runs", () => {
  // Stored without a second parse (receive.ts, score-live-run.ts): whatever events were admitted, the record is valid as it is.
  it("makes a record runRecordSchema accepts unchanged from any admitted events, scored or not", () => {
    const rand = seededRandom(24);
    const pick = <T>(items: readonly T[]) => items[Math.floor(rand() * items.length)]!;
    const padded = (word: string) => pick(["", " ", "\t"]) + word + pick(["", " ", "\n"]);
    const time = (s: number) => {
      const ms = T0 + Math.round(s * 1000);
      const offset = pick([0, 60, -300]);
      if (offset === 0) return pick([new Date(ms).toISOString(), new Date(ms).toISOString().replace(".000Z", "Z")]);
      const local = new Date(ms + offset * 60_000).toISOString().slice(0, 23);
      const sign = offset > 0 ? "+" : "-";
      return `${local}${sign}${String(Math.abs(offset) / 60).padStart(2, "0")}:00`;
    };
    for (let run = 0; run < 300; run++) {
      const list: object[] = [];
      const effects = Math.floor(rand() * 5);
      for (let e = 0; e < effects; e++) {
        const requestedAt = rand() * 20 - 5;
        list.push({
          eventId: padded(`r${e}`),
          type: "effect_requested",
          at: time(requestedAt),
          effectId: padded(`t${e}`),
          tool: padded(pick(["send_money", "bank.read"])),
          ...(rand() < 0.5 && { surface: padded(`acct:${e}`) }),
          ...(rand() < 0.3 && { handle: padded(`op-${e}`) }),
          ...(rand() < 0.3 && { callId: padded(`call-${e}`) }),
          ...(rand() < 0.3 && { arguments: { amount: e, note: " kept as sent " } }),
        });
        for (let s = 0; s < Math.floor(rand() * 4); s++)
          list.push({
            eventId: `s${e}.${s}`,
            type: "effect_status",
            at: time(requestedAt + rand() * 30 - 3),
            effectId: `t${e}`,
            status: pick(["pending", "running", "completed", "failed", "cancelled", "unknown"]),
            ...(rand() < 0.3 && { evidence: pick([" read back ", { op: e }]) }),
            ...(rand() < 0.2 && { handle: ` task-${e} ` }),
          });
      }
      for (let t = 0; t < Math.floor(rand() * 3); t++)
        list.push({
          eventId: `x${t}`,
          type: "touch",
          at: time(rand() * 30 - 5),
          surface: padded(`acct:${t}`),
          op: pick(["read", "write"]),
        });
      if (rand() < 0.3)
        list.push({
          eventId: "z",
          type: "reset",
          at: time(rand() * 30),
          surface: padded("acct:0"),
          verified: rand() < 0.5,
          evidence: " wiped ",
        });
      const admission = admitEvents(empty, list);
      const outcome =
        rand() < 0.2
          ? { unscoredReason: "TimeoutError" }
          : { scoredAtMs: T0 + Math.round((rand() * 30 - 10) * 1000), endpointLabel: pick(["success", "failure"] as const), score: rand() };
      const record = liveRunRecord(
        { ...head, startedAtMs: T0 + Math.round(rand() * 10_000) },
        admission.accepted.map((a) => a.event),
        outcome,
      );
      expect(runRecordSchema.parse(record), `run ${run}: ${JSON.stringify(list)}`).toEqual(record);
    }
  });
});

describe("a live run's model calls", () => {
  const modelCall = (eventId: string, s: number, extra: object = {}) => ({ eventId, type: "model_call", at: at(s), ...extra });

  it("are the record's modelCalls in time order, each started at its event's time", () => {
    const list = [
      modelCall("m2", 4, { model: "gpt-4o", durationMs: 250, inputTokens: 1_300, outputTokens: 12 }),
      modelCall("m1", 1, { model: "gpt-4o", durationMs: 500, error: "429 rate limited" }),
    ];
    const record = liveRunRecord(head, events(list), { scoredAtMs: T0 + 5000, endpointLabel: "success" });
    expect(record.modelCalls).toEqual([
      { model: "gpt-4o", durationMs: 500, error: "429 rate limited", startedAt: at(1) },
      { model: "gpt-4o", durationMs: 250, inputTokens: 1_300, outputTokens: 12, startedAt: at(4) },
    ]);
    expect(runRecordSchema.parse(record)).toEqual(record);
    expect(liveRunRecord(head, [], { unscoredReason: "x" }).modelCalls).toBeUndefined();
  });

  it("are refused one by one naming the field, and past the 2,000 a run holds", () => {
    const admission = admitEvents(empty, [
      modelCall("m1", 1, { inputTokens: -1 }),
      modelCall("m2", 1, { messagePosition: 0 }),
      modelCall("m3", 2),
    ]);
    expect(admission.errors.map((e) => [e.index, e.field])).toEqual([
      [0, "events.0.inputTokens"],
      [1, "events.1.messagePosition"],
    ]);
    expect(admission.accepted.map((a) => a.index)).toEqual([2]);
    const full = admitEvents({ ...empty, counts: { ...empty.counts, model_call: 2_000 } }, [modelCall("m4", 1)]);
    expect(full.errors).toEqual([
      { index: 0, code: "too_many_events", message: "events.0.type: a run holds at most 2000 model calls", field: "events.0.type" },
    ]);
  });
});

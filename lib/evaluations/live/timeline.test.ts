import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../content-hash";
import { runRecordSchema } from "../run-record-schema";
import { at, empty, events, head, requested, status, T0 } from "../../testing/live-timeline-events";
import { admitEvents, liveRunRecord, type StoredEvidence } from "./timeline";

// Which events a live run admits (timeline.ts's admitEvents); the record they make is timeline-record.test.ts's.

describe("admitEvents", () => {
  it("admits a status sent before its effect's request in the same batch, and keeps the request order of indexes", () => {
    const admission = admitEvents(empty, [status("e2", "t1", "pending", 2), requested("e1", "t1", 1)]);
    expect(admission.errors).toEqual([]);
    expect(admission.accepted.map((a) => a.index)).toEqual([0, 1]);
  });

  it("refuses a status of an effect never requested, alone, naming its field", () => {
    const admission = admitEvents(empty, [
      requested("e1", "t1", 1),
      status("e2", "nope", "completed", 2),
      { eventId: "e3", type: "touch", at: at(3), surface: "acct:1", op: "read" },
    ]);
    expect(admission.accepted.map((a) => a.event.eventId)).toEqual(["e1", "e3"]);
    expect(admission.errors).toEqual([
      {
        index: 1,
        code: "unknown_effect",
        field: "events.1.effectId",
        message: "events.1.effectId: effect nope has no effect_requested event in this run",
      },
    ]);
  });

  it("names the field of an event its schema refuses: a missing field, an unknown type, an unknown field", () => {
    const admission = admitEvents(empty, [
      { eventId: "a", type: "effect_requested", at: at(1), tool: "x" },
      { eventId: "b", type: "teleport", at: at(1) },
      { eventId: "c", type: "touch", at: at(1), surface: "s", op: "read", colour: "red" },
      { eventId: "d", type: "touch", at: "yesterday", surface: "s", op: "read" },
      { eventId: "e", type: "touch", at: at(1), surface: "s\u0000", op: "read" },
    ]);
    expect(admission.accepted).toEqual([]);
    expect(admission.errors.map((e) => [e.code, e.field])).toEqual([
      ["invalid_event", "events.0.effectId"],
      ["invalid_event", "events.1.type"],
      ["invalid_event", "events.2.colour"],
      ["invalid_event", "events.3.at"],
      ["invalid_event", "events.4.surface"],
    ]);
    expect(admission.errors[1]!.message).toContain("type must be one of effect_requested, effect_status, touch, reset");
  });

  it("is idempotent by eventId: the same content again is a duplicate, other content a conflict", () => {
    const first = requested("e1", "t1", 1);
    const stored: StoredEvidence = { ...empty, effects: new Map([["t1", T0 + 1000]]), storedById: new Map() };
    const within = admitEvents(empty, [first, { ...first }, { ...first, tool: "other" }]);
    expect([within.accepted.length, within.duplicates, within.errors.map((e) => e.code)]).toEqual([1, 1, ["event_id_conflict"]]);
    // Stored as the live-run store keeps it: the event's canonical JSON.
    const storedById = new Map([["e1", canonicalJson(within.accepted[0]!.event)]]);
    const again = admitEvents({ ...stored, storedById }, [{ ...first }]);
    expect([again.accepted.length, again.duplicates, again.errors]).toEqual([0, 1, []]);
    const changed = admitEvents({ ...stored, storedById }, [{ ...first, tool: "other" }]);
    expect([changed.accepted.length, changed.duplicates, changed.errors.map((e) => e.code)]).toEqual([0, 0, ["event_id_conflict"]]);
  });

  it("refuses a second request of one effect and a status before its effect's request", () => {
    const stored: StoredEvidence = { ...empty, effects: new Map([["t1", T0 + 5000]]), counts: { ...empty.counts, effect_requested: 1 } };
    const admission = admitEvents(stored, [requested("e9", "t1", 6), status("e10", "t1", "pending", 4)]);
    expect(admission.errors.map((e) => [e.code, e.field])).toEqual([
      ["duplicate_effect", "events.0.effectId"],
      ["before_request", "events.1.at"],
    ]);
  });

  it("refuses a status moving out of a terminal state, by time, whatever order the events arrive in", () => {
    const stored: StoredEvidence = {
      ...empty,
      effects: new Map([["t1", T0]]),
      statuses: new Map([
        [
          "t1",
          [
            { status: "pending", atMs: T0 + 1000 },
            { status: "completed", atMs: T0 + 5000 },
          ],
        ],
      ]),
    };
    const admission = admitEvents(stored, [
      status("a", "t1", "pending", 6),
      status("b", "t1", "failed", 7),
      status("c", "t1", "completed", 8),
      status("d", "t1", "unknown", 3),
    ]);
    expect(admission.errors.map((e) => [e.index, e.code])).toEqual([
      [0, "leaves_terminal"],
      [1, "leaves_terminal"],
    ]);
    expect(admission.accepted.map((a) => a.event.eventId)).toEqual(["c", "d"]);
    // A terminal status sent late, before a different status already stored after it, is refused too.
    const late = admitEvents({ ...stored, statuses: new Map([["t1", [{ status: "pending", atMs: T0 + 9000 }]]]) }, [
      status("x", "t1", "completed", 4),
    ]);
    expect(late.errors.map((e) => e.code)).toEqual(["leaves_terminal"]);
  });

  describe("statuses of effects not requested yet, held (the OTLP receiver's spans come in any order)", () => {
    const hold = { holdStatusesOfUnknownEffects: true };

    it("admits a status of an effect not requested yet when asked to hold it, and refuses it otherwise", () => {
      const items = [status("s1", "later", "completed", 5)];
      const held = admitEvents(empty, items, hold);
      expect([held.accepted.map((a) => a.event.eventId), held.errors, held.dropped]).toEqual([["s1"], [], []]);
      expect(admitEvents(empty, items).errors.map((e) => e.code)).toEqual(["unknown_effect"]);
    });

    it("checks held statuses when their effect's request comes, in arrival order, and drops the ones refused then", () => {
      const stored: StoredEvidence = {
        ...empty,
        held: new Map([
          [
            "t1",
            [
              { eventId: "early", status: "completed", atMs: T0 + 1_000 },
              { eventId: "done", status: "completed", atMs: T0 + 5_000 },
              { eventId: "contradicts", status: "failed", atMs: T0 + 6_000 },
            ],
          ],
        ]),
      };
      const admission = admitEvents(stored, [requested("r1", "t1", 2), status("ack", "t1", "pending", 3)], hold);
      expect(admission.accepted.map((a) => a.event.eventId)).toEqual(["r1", "ack"]);
      expect(admission.errors).toEqual([]);
      expect(admission.dropped).toEqual([
        { eventId: "early", effectId: "t1", code: "before_request", message: expect.stringContaining("before the effect was requested") },
        { eventId: "contradicts", effectId: "t1", code: "leaves_terminal", message: expect.stringContaining("was completed at") },
      ]);
      // The held status admitted counts for what comes after it: a later status leaving its terminal state is refused.
      const after = admitEvents(stored, [requested("r1", "t1", 2), status("reopen", "t1", "pending", 7)], hold);
      expect(after.errors.map((e) => [e.index, e.code])).toEqual([[1, "leaves_terminal"]]);
    });

    it("checks held statuses when the request comes without holding (a live-run route's request to an OTLP run)", () => {
      const stored: StoredEvidence = { ...empty, held: new Map([["t1", [{ eventId: "early", status: "completed", atMs: T0 }]]]) };
      const admission = admitEvents(stored, [requested("r1", "t1", 2)]);
      expect(admission.accepted.map((a) => a.event.eventId)).toEqual(["r1"]);
      expect(admission.dropped.map((d) => [d.eventId, d.code])).toEqual([["early", "before_request"]]);
    });

    it("leaves held statuses alone when no request of their effect comes", () => {
      const stored: StoredEvidence = { ...empty, held: new Map([["t1", [{ eventId: "early", status: "completed", atMs: T0 }]]]) };
      const admission = admitEvents(stored, [requested("r2", "t2", 2), status("s2", "t2", "completed", 3)], hold);
      expect([admission.accepted.length, admission.errors, admission.dropped]).toEqual([2, [], []]);
    });

    it("leaves a held status out of the record until its effect's request is among the events", () => {
      const outcome = { scoredAtMs: T0 + 10_000, endpointLabel: "success" as const };
      const heldOnly = liveRunRecord(head, events([status("s1", "t1", "completed", 3)], hold), outcome);
      expect(heldOnly.effects).toEqual([]);
      const withRequest = liveRunRecord(head, events([status("s1", "t1", "completed", 3), requested("r1", "t1", 1)], hold), outcome);
      expect(withRequest.effects!.map((e) => [e.effectId, e.statusAtScoring])).toEqual([["t1", "completed"]]);
      expect(runRecordSchema.parse(heldOnly)).toEqual(heldOnly);
    });
  });

  it("admits an event before the run's start and flags it as clock skew", () => {
    const admission = admitEvents({ ...empty, startedAtMs: T0 + 10_000 }, [requested("e1", "t1", 1)]);
    expect(admission.accepted).toHaveLength(1);
    expect(admission.flagged).toEqual([
      { index: 0, code: "clock_skew", message: expect.stringContaining("events.0.at is before the run's start") },
    ]);
  });

  it("refuses events over the record's limits, naming the limit", () => {
    const full: StoredEvidence = { ...empty, counts: { effect_requested: 1_000, touch: 10_000, reset: 0, model_call: 0 } };
    const admission = admitEvents(full, [
      requested("e1", "t1", 1),
      { eventId: "e2", type: "touch", at: at(1), surface: "s", op: "read" },
      { eventId: "e3", type: "reset", at: at(1), surface: "s", verified: true },
    ]);
    expect(admission.errors.map((e) => e.message)).toEqual([
      "events.0.type: a run holds at most 1000 effects",
      "events.1.type: a run holds at most 10000 touches",
    ]);
    expect(admission.accepted.map((a) => a.event.eventId)).toEqual(["e3"]);
  });
});

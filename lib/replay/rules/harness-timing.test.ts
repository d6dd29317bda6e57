import { describe, expect, it } from "vitest";
import { T0, cancelledPending, snapshotPending } from "../../testing/test-support";
import { harnessLateness } from "./harness-timing";
import type { FinalityEvidence, RunRecord } from "./records";

/** A snapshot trial at 25 ms whose first write (requested +0.4, due +25.4) is read at +1.2, with a second write read at `secondReadMs`. */
function twoWriteTrial(secondReadMs: number): RunRecord {
  const run = snapshotPending();
  const first = run.evidence as FinalityEvidence;
  const secondAck = {
    ...first.ack,
    handle: "op_second",
    key: "banking.update_password",
    acceptedAtMs: T0 + 10,
    ackAtMs: T0 + 10.2,
    dueAtMs: T0 + 35,
  };
  const second = {
    ...first,
    key: "banking.update_password",
    ack: secondAck,
    terminal: secondAck,
    endpointRead: { entry: null, readAtMs: T0 + secondReadMs },
  };
  return {
    ...run,
    taskId: "banking/user_task_15",
    groupId: "g",
    scheduleId: 1,
    repetition: 0,
    namespace: "bl/x/fin",
    key: "k",
    score: 0,
    measuredDelayMs: null,
    inheritedState: "none",
    endpointAtMs: T0 + secondReadMs,
    evidence: { ...first, otherWrites: [second] },
  };
}

/** A verified cancellation at 25 ms (due +25.4) whose cancellation the service took at `cancelledAtMs`, answering `outcome`. */
function cancellationTrial(cancelledAtMs: number | null, outcome: "cancelled" | "too_late_completed"): RunRecord {
  const run = cancelledPending();
  const evidence = run.evidence as FinalityEvidence;
  const confirmed = { ...evidence.cancel!.confirmed, cancelledAtMs };
  return {
    ...run,
    taskId: "banking/user_task_3",
    groupId: "g",
    scheduleId: 1,
    repetition: 1,
    namespace: "bl/x/fin",
    key: "k",
    score: 0,
    measuredDelayMs: null,
    inheritedState: "none",
    endpointAtMs: T0 + 1.2,
    evidence: { ...evidence, cancel: { outcome, confirmed } },
  };
}

describe("harnessLateness", () => {
  it("passes a trial whose every endpoint read precedes every write's due time", () => {
    expect(harnessLateness([twoWriteTrial(12)])).toEqual({ cases: 2, late: [] });
  });

  it("voids a trial whose last endpoint read came after its first write was due, though each write's own read was in time", () => {
    // Scored at +30 (the last endpoint read): the first write came due at +25.4 and may be applied before scoring.
    expect(harnessLateness([twoWriteTrial(30)])).toEqual({ cases: 2, late: ["op_snap endpoint read 4.600 ms after due"] });
  });

  it("voids a cancellation the service took after the write was due, even when it still found the write pending", () => {
    expect(harnessLateness([cancellationTrial(T0 + 1.6, "cancelled")])).toEqual({ cases: 1, late: [] });
    // A starved service had not applied the write yet, so it answered "cancelled": the schedule had landed it 2 ms before.
    expect(harnessLateness([cancellationTrial(T0 + 27.4, "cancelled")])).toEqual({
      cases: 1,
      late: ["op_cancel cancellation 2.000 ms after due, still pending on a late service"],
    });
    expect(harnessLateness([cancellationTrial(null, "too_late_completed")])).toEqual({
      cases: 1,
      late: ["op_cancel cancellation after due (too_late_completed)"],
    });
  });
});

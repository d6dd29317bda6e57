import { describe, expect, it } from "vitest";
import {
  T0,
  cancelledPending,
  environmentFailure,
  noWriteA,
  reconciliationPending,
  sharedPair,
  snapshotPending,
  snapshotZeroDelay,
} from "../../testing/test-support";
import type { FinalityEvidence } from "../../replay/rules/records";
import {
  describeEntry,
  formatOffset,
  parseRunEvidence,
  roughMs,
  runTimeline,
  scoringBeforeEndpoint,
  writeIntervals,
  type TimelineEvent,
} from "./timeline";

const shape = (events: TimelineEvent[]) => events.map((e) => `${e.actor}:${e.kind}`);
const at = (events: TimelineEvent[], kind: TimelineEvent["kind"], actor?: TimelineEvent["actor"]) =>
  events.find((e) => e.kind === kind && (!actor || e.actor === actor));

describe("runTimeline", () => {
  it("orders a pending snapshot trial on the service clock: scored at the endpoint, applied after it", () => {
    const events = runTimeline(snapshotPending());
    expect(shape(events)).toEqual([
      "single:trace",
      "single:request",
      "single:acknowledgement",
      "single:endpoint",
      "single:scoring",
      "single:due",
      "single:application",
      "single:read",
      "single:end",
    ]);
    expect(events[0]!.offsetMs).toBe(0);
    expect(at(events, "request")!.offsetMs).toBeCloseTo(0.4, 9);
    expect(at(events, "due")!.offsetMs).toBeCloseTo(25.4, 9);
    expect(at(events, "application")!.offsetMs).toBeCloseTo(25.41, 9);
    expect(at(events, "application")!.label).toContain("measured delay 25.010 ms");
    expect(at(events, "endpoint")!.label).toContain("nothing stored under the key");
    expect(at(events, "read")!.label).toContain("the value written by operation op_snap");
    expect(at(events, "scoring")!.label).toContain("recorded label failure");
    for (const e of events) expect(e.offsetMs).toBeCloseTo(e.atMs - T0, 9);
  });

  it("puts a zero-delay write's application before its acknowledgement, with no due event", () => {
    const events = runTimeline(snapshotZeroDelay());
    expect(shape(events)).toEqual([
      "single:trace",
      "single:request",
      "single:application",
      "single:acknowledgement",
      "single:endpoint",
      "single:scoring",
      "single:end",
    ]);
  });

  it("shows a verified cancellation before the due time, and the re-read after it", () => {
    const events = runTimeline(cancelledPending());
    expect(shape(events)).toEqual([
      "single:trace",
      "single:request",
      "single:acknowledgement",
      "single:endpoint",
      "single:cancellation",
      "single:read",
      "single:scoring",
      "single:due",
      "single:read",
      "single:end",
    ]);
    expect(events.filter((e) => e.kind === "read")[1]!.label).toMatch(/^Re-read after the due time: operation still cancelled/);
    expect(at(events, "application")).toBeUndefined();
  });

  it("shows a B run with its pair's events, before its own start at negative offsets: A's write lands before B is scored", () => {
    const { b } = sharedPair();
    const events = runTimeline(b);
    expect(shape(events)).toEqual([
      "A:request",
      "A:acknowledgement",
      "A:endpoint",
      "B:trace",
      "B:initialisation",
      "B:endpoint",
      "A:due",
      "A:application",
      "B:scoring",
      "B:end",
    ]);
    expect(at(events, "request", "A")!.offsetMs).toBeCloseTo(-0.85, 9);
    expect(at(events, "trace", "B")!.offsetMs).toBe(0);
    expect(at(events, "scoring", "B")!.label).toBe("Run B scored the value written by operation op_a");
    expect(at(events, "application", "A")!.atMs).toBeLessThan(at(events, "scoring", "B")!.atMs);
  });

  it("scores run A at its operation's terminal time, and a no-write A has no write events", () => {
    const { a } = sharedPair();
    expect(at(runTimeline(a), "scoring", "A")!.atMs).toBe(a.scoredAtMs);
    const noWrite = runTimeline(noWriteA());
    expect(noWrite.some((e) => e.kind === "request" || e.kind === "application" || (e.kind === "scoring" && e.actor === "A"))).toBe(false);
    expect(at(noWrite, "scoring", "B")!.label).toBe("Run B scored B's own initial value");
  });

  it("lists each voided attempt of an environment failure", () => {
    const events = runTimeline(environmentFailure());
    expect(shape(events)).toEqual(["single:trace", "single:voided_attempt", "single:voided_attempt", "single:end"]);
    expect(events[2]!.label).toBe("Attempt 1 voided: POST /v1/writes: connection refused");
    expect(events[2]!.offsetMs).toBe(347);
  });

  it("shows every write of a trace with two state-changing calls, each with its own interval and resolution", () => {
    const run = snapshotPending();
    const first = run.evidence as FinalityEvidence;
    const secondAck = {
      ...first.ack,
      handle: "op_second",
      key: "banking.update_password",
      acceptedAtMs: T0 + 0.8,
      ackAtMs: T0 + 1,
      dueAtMs: T0 + 25.8,
    };
    const secondTerminal = { ...secondAck, status: "cancelled" as const, cancelledAtMs: T0 + 1.5 };
    const second = {
      key: "banking.update_password",
      expectedValue: null,
      ack: secondAck,
      endpointRead: { entry: null, readAtMs: T0 + 1.1 },
      cancel: null,
      terminal: secondTerminal,
      terminalRead: { entry: null, readAtMs: T0 + 1.6 },
      afterDue: null,
    };
    const events = runTimeline({ ...run, evidence: { ...first, otherWrites: [second] } });
    expect(events.filter((e) => e.kind === "request").map((e) => e.label)).toEqual([
      "The trial requested an async write of banking.send_money with a 25 ms delay (operation op_snap) [write 1 of 2, key banking.send_money]",
      "The trial requested an async write of banking.update_password with a 25 ms delay (operation op_second) [write 2 of 2, key banking.update_password]",
    ]);
    expect(events.filter((e) => e.kind === "endpoint")).toHaveLength(2);
    expect(at(events, "cancellation")!.label).toBe(
      "The service cancelled the write before it was applied [write 2 of 2, key banking.update_password]",
    );
    expect(events.filter((e) => e.kind === "scoring")).toHaveLength(1);
    // op_snap: requested +0.4, applied at its due time +25.4 plus 0.01, after scoring at +1.2; op_second: cancelled at +1.5, also after scoring.
    const intervals = writeIntervals({ ...run, evidence: { ...first, otherWrites: [second] } });
    expect(intervals.map((w) => [w.handle, w.resolution, w.statusAtEndpoint, w.endedByScoring])).toEqual([
      ["op_snap", "completed", "pending", false],
      ["op_second", "cancelled", "pending", false],
    ]);
    expect(intervals[0]!.fromMs).toBeCloseTo(0.4, 9);
    expect(intervals[0]!.toMs).toBeCloseTo(25.41, 9);
    expect(intervals[1]!.toMs).toBeCloseTo(1.5, 9);
  });

  it("names no write in the labels of a one-write trial, and gives it one interval", () => {
    const events = runTimeline(snapshotPending());
    expect(events.some((e) => e.label.includes("[write"))).toBe(false);
    expect(writeIntervals(reconciliationPending()).map((w) => w.endedByScoring)).toEqual([true]);
    expect(writeIntervals(sharedPair().b)).toEqual([]);
  });

  it("falls back to the run's own times when the evidence is not in a known shape", () => {
    const run = { ...snapshotPending(), evidence: { zeta: [3, 1, 2] } };
    expect(parseRunEvidence(run.evidence)).toBeNull();
    expect(shape(runTimeline(run))).toEqual(["single:trace", "single:end"]);
  });
});

describe("scoringBeforeEndpoint", () => {
  it("explains a run A scored on its terminal label before its endpoint read, by the condition", () => {
    const a = { role: "A", condition: "verified_reset", endpointAtMs: 1_223.4, scoredAtMs: 1_100.2 };
    expect(scoringBeforeEndpoint(a)).toBe(
      "Scored 123.2 ms before its endpoint, by design: run A's label is its terminal label, fixed the instant its last write became terminal, and under verified reset the pair reads A's endpoint only after waiting for A's writes to be terminal.",
    );
    expect(scoringBeforeEndpoint({ ...a, condition: "shared" })).toContain(
      "its write was applied when acknowledged, before the endpoint read",
    );
  });

  it("says nothing when scoring follows the endpoint, for B and single runs, or without both times", () => {
    const a = { role: "A", condition: "verified_reset", endpointAtMs: 1_000, scoredAtMs: 1_100 };
    expect(scoringBeforeEndpoint(a)).toBeNull();
    expect(scoringBeforeEndpoint({ ...a, role: "B", scoredAtMs: 900 })).toBeNull();
    expect(scoringBeforeEndpoint({ ...a, role: "single", scoredAtMs: 900 })).toBeNull();
    expect(scoringBeforeEndpoint({ ...a, scoredAtMs: null })).toBeNull();
  });
});

describe("formatters", () => {
  it("sign offsets and show the microseconds", () => {
    expect(formatOffset(0)).toBe("+0.000 ms");
    expect(formatOffset(25.41)).toBe("+25.410 ms");
    expect(formatOffset(-0.85)).toBe("−0.850 ms");
  });

  it("round durations in sentences to a tenth", () => {
    expect(roughMs(24.8)).toBe("24.8 ms");
    expect(roughMs(25.0000001)).toBe("25 ms");
    expect(roughMs(0.04)).toBe("0 ms");
  });

  it("say whose value a read found", () => {
    const entry = (writtenBy: string) => ({ key: "k", value: 1, version: 1, writtenBy, writtenAtMs: 1 });
    expect(describeEntry(null, "op_1")).toBe("nothing stored under the key");
    expect(describeEntry(entry("op_1"), "op_1")).toBe("the value written by operation op_1");
    expect(describeEntry(entry("initialise"), "op_1")).toBe("B's own initial value");
    expect(describeEntry(entry("reset"), null)).toBe("the value the reset restored");
  });
});

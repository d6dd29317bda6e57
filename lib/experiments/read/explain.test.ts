import { describe, expect, it } from "vitest";
import type { FinalityEvidence, SeparationEvidence } from "../../replay/rules/records";
import {
  cancelledPending,
  environmentFailure,
  noWriteA,
  reconciliationPending,
  sharedPair,
  snapshotPending,
  snapshotZeroDelay,
} from "../../testing/test-support";
import { agreementOf, explainRun } from "./explain";

describe("agreementOf", () => {
  it("follows labels.ts: a missing label is neither agreement nor disagreement, unresolved disagrees", () => {
    expect(agreementOf("success", "success")).toBe("agree");
    expect(agreementOf("failure", "success")).toBe("disagree");
    expect(agreementOf("success", "unresolved")).toBe("disagree");
    expect(agreementOf(null, "unresolved")).toBeNull();
    expect(agreementOf("failure", null)).toBeNull();
  });
});

describe("explainRun: finality", () => {
  it("says why a pending snapshot records failure though its terminal label is success", () => {
    const { summary, notes } = explainRun(snapshotPending());
    expect(summary).toBe(
      "Snapshot scored at the endpoint: the write was still pending (due +24.8 ms after acknowledgement), so the endpoint label is failure though the terminal label is success; " +
        "the recorded label is the endpoint label, failure. Followed by its handle afterwards, the operation completed (applied 25 ms after its request).",
    );
    expect(notes).toEqual([
      "The endpoint and terminal labels disagree (failure / success).",
      "Not final at scoring: an operation that could change the scored value was still pending (or unresolved) when it was scored.",
    ]);
  });

  it("says a zero-delay write was applied before the acknowledgement", () => {
    expect(explainRun(snapshotZeroDelay()).summary).toBe(
      "Snapshot scored at the endpoint: the write was applied before the acknowledgement (delay 0 ms), so the endpoint label is success, as is the terminal label; the recorded label is the endpoint label, success.",
    );
  });

  it("does not call a write pending when the endpoint read already found it applied", () => {
    const run = snapshotPending();
    const ev = run.evidence as FinalityEvidence;
    const late = {
      ...run,
      endpointLabel: "success" as const,
      recordedLabel: "success" as const,
      evidence: { ...ev, endpointRead: ev.terminalRead },
    };
    expect(explainRun(late).summary).toMatch(
      /^Snapshot scored at the endpoint: the write, pending at acknowledgement \(due \+24\.8 ms after acknowledgement\), was applied before the endpoint read ran, so the endpoint label is success, as is the terminal label;/,
    );
  });

  it("names the synchronous control and why its write was already there", () => {
    const run = snapshotZeroDelay();
    const ev = run.evidence as FinalityEvidence;
    const sync = { ...run, condition: "sync_snapshot", evidence: { ...ev, ack: { ...ev.ack, mode: "sync" as const } } };
    expect(explainRun(sync).summary).toMatch(
      /^Snapshot on the synchronous control scored at the endpoint: the synchronous write was applied before the call returned, so/,
    );
  });

  it("says reconciliation waited for the terminal state, and why the endpoint label differed", () => {
    expect(explainRun(reconciliationPending()).summary).toBe(
      "Reconciliation followed the handle until the operation completed (applied 25 ms after its request), then scored, so the recorded label is the terminal label, success; " +
        "the endpoint label was failure because the write was still pending (due +24.8 ms after acknowledgement).",
    );
  });

  it("says a verified cancellation held, and a late one came too late", () => {
    expect(explainRun(cancelledPending()).summary).toBe(
      "Verified cancellation cancelled the pending write before it was due, confirmed it by re-reading the operation by handle and again after its due time (still cancelled), then scored, so the recorded label is the terminal label, failure.",
    );
    const zero = snapshotZeroDelay();
    const ev = zero.evidence as FinalityEvidence;
    const late = {
      ...zero,
      condition: "verified_cancellation",
      evidence: { ...ev, cancel: { outcome: "too_late_completed", confirmed: ev.terminal } },
    };
    expect(explainRun(late).summary).toBe(
      "Verified cancellation asked to cancel, but the write had already been applied (delay 0 ms): the service answered too late, completed, then scored, so the recorded label is the terminal label, success.",
    );
  });

  it("says an unresolved terminal label is not a failure, and notes the protocol stop", () => {
    const run = snapshotPending();
    const ev = run.evidence as FinalityEvidence;
    const stopped = {
      ...run,
      condition: "reconciliation",
      terminalLabel: "unresolved" as const,
      recordedLabel: "unresolved" as const,
      classification: "protocol_stop" as const,
      evidence: { ...ev, terminal: ev.ack },
    };
    const { summary, notes } = explainRun(stopped);
    expect(summary).toBe(
      "Reconciliation followed the handle, but the operation was still pending when the follow-up budget ran out (unresolved, which is not a failure), so the recorded label is the terminal label, unresolved; " +
        "the endpoint label was failure because the write was still pending (due +24.8 ms after acknowledgement).",
    );
    expect(notes).toContain("Classified protocol stop: the declared follow-up budget ran out before the operation ended.");
  });
});

describe("explainRun: separation", () => {
  it("says why B is exposed under shared state", () => {
    expect(explainRun(sharedPair().b).summary).toBe(
      "Shared state: A's write (25 ms delay) was still pending when B initialised its value and landed on it before B was scored; B scored the value written by operation op_a: exposure, so B's label is failure.",
    );
  });

  it("says why B is not exposed under each blocking condition", () => {
    const { b } = sharedPair();
    const ev = b.evidence as SeparationEvidence;
    const own = { ...ev, bScoringRead: { entry: ev.bInit.entry, readAtMs: ev.bScoringRead.readAtMs } };
    const unexposed = (condition: string) =>
      explainRun({ ...b, condition, exposure: false, terminalLabel: "success", recordedLabel: "success", evidence: own }).summary;
    expect(unexposed("namespaced")).toBe(
      "Namespaced state: A wrote in its own namespace, out of reach of B's value; B scored B's own initial value: no exposure, so B's label is success.",
    );
    expect(unexposed("verified_reset")).toMatch(
      /^Verified reset: after A's operation was terminal, the namespace was reset to B's initial value and read back with nothing pending before B began; /,
    );
    expect(unexposed("b_before_a")).toMatch(/^B before A: B was initialised and scored before A requested its write; /);
    expect(unexposed("no_write")).toMatch(/^No-write control: A issued no operation; /);
    // Shared state at delay 0: A's write was already applied when B initialised its value over it.
    const early = { ...own, aTerminal: { ...ev.aTerminal!, appliedAtMs: ev.bInit.entry!.writtenAtMs - 0.5 } };
    expect(explainRun({ ...b, delayMs: 0, exposure: false, recordedLabel: "success", evidence: early }).summary).toBe(
      "Shared state: A's write was applied before B initialised its value (delay 0 ms), so B's initialisation replaced it; B scored B's own initial value: no exposure, so B's label is success.",
    );
  });

  it("says run A records its terminal label, and a no-write A makes no claim", () => {
    expect(explainRun(sharedPair().a).summary).toBe(
      "Shared state: run A is scored once its own operation is terminal (the pair waits for it anyway): the operation completed (applied 25 ms after its request), so its recorded label is the terminal label, success; " +
        "its endpoint label was failure because the write was still pending (due +24.8 ms after acknowledgement).",
    );
    expect(explainRun(noWriteA())).toEqual({
      summary: "No-write control: run A issues no operation, so it makes no claim and has no label.",
      notes: [],
    });
  });

  it("notes that grouped analysis counts the pair once", () => {
    expect(explainRun({ ...sharedPair().b, condition: "grouped" }).notes).toContain(
      "Grouped analysis counts A and B of this pair as one unit.",
    );
  });
});

describe("explainRun: failed units and unknown evidence", () => {
  it("says an environment failure was voided on every attempt, and an agent failure was the trace's fault", () => {
    const { summary, notes } = explainRun(environmentFailure());
    expect(summary).toMatch(/^Every predeclared attempt failed \(2 recorded: /);
    expect(notes).toEqual([]);
    expect(explainRun({ ...environmentFailure(), classification: "agent_failure" }).summary).toMatch(
      /^The service rejected the trace's write as invalid/,
    );
  });

  it("rests on the labels alone when the evidence is not in a known shape, and says so", () => {
    const { summary, notes } = explainRun({ ...snapshotPending(), evidence: { unknown: true } });
    expect(summary).toMatch(
      /^Snapshot scored at the endpoint: the endpoint read did not hold the expected value, so the endpoint label is failure though the terminal label is success/,
    );
    expect(notes.at(-1)).toBe(
      "The stored evidence is not in the shape this version reads; the explanation rests on the run's labels alone.",
    );
  });
});

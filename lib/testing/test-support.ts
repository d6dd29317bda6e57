// For the dashboard's tests only: run evidence as the replay writes it (records.ts), typed against the
// real records so that a change to the evidence shape breaks these fixtures at compile time, and a
// strict RFC 4180 reader that is independent of csv-stringify.
import type { Operation, StoredEntry } from "../delayed-write/delayed-write-schemas";
import type { FinalityEvidence, RunRecord, SeparationEvidence } from "../replay/rules/records";

export const T0 = 1_000;

function operation(fields: Partial<Operation> & Pick<Operation, "handle" | "delayMs" | "mode">): Operation {
  const acceptedAtMs = fields.acceptedAtMs ?? T0 + 0.4;
  return {
    namespace: "bl/x/fin",
    key: "banking.send_money",
    value: { function: "send_money" },
    status: "pending",
    acceptedAtMs,
    dueAtMs: acceptedAtMs + fields.delayMs,
    ackAtMs: acceptedAtMs + 0.2,
    appliedAtMs: null,
    cancelledAtMs: null,
    failedAtMs: null,
    failure: null,
    measuredDelayMs: null,
    ...fields,
  };
}

const entry = (writtenBy: string, writtenAtMs: number): StoredEntry => ({
  key: "banking.send_money",
  value: { by: writtenBy },
  version: 1,
  writtenBy,
  writtenAtMs,
});
const applied = (op: Operation, lateByMs = 0.01): Operation => ({
  ...op,
  status: "completed",
  appliedAtMs: op.dueAtMs + lateByMs,
  measuredDelayMs: op.delayMs + lateByMs,
});

type Labels = Pick<RunRecord, "endpointLabel" | "terminalLabel" | "recordedLabel" | "exposure" | "finalAtScoring" | "classification">;
export type FixtureRun = Pick<
  RunRecord,
  "test" | "condition" | "delayMs" | "role" | "startedAtMs" | "scoredAtMs" | "endedAtMs" | "evidence"
> &
  Labels;

/** Snapshot at 25 ms: read while pending (endpoint failure), applied later (terminal success). */
export function snapshotPending(): FixtureRun {
  const ack = operation({ handle: "op_snap", delayMs: 25, mode: "async" });
  const terminal = applied(ack);
  const evidence: FinalityEvidence = {
    kind: "finality",
    namespace: "bl/x/fin",
    key: "banking.send_money",
    expectedValue: { function: "send_money" },
    ack,
    endpointRead: { entry: null, readAtMs: T0 + 1.2 },
    cancel: null,
    terminal,
    terminalRead: { entry: entry("op_snap", terminal.appliedAtMs!), readAtMs: T0 + 25.9 },
    afterDue: null,
    namespaceHandles: ["op_snap"],
    pendingAtEnd: 0,
    scoredAtMs: T0 + 1.2,
    serviceFailures: [],
  };
  return {
    test: "finality",
    condition: "snapshot",
    delayMs: 25,
    role: "single",
    endpointLabel: "failure",
    terminalLabel: "success",
    recordedLabel: "failure",
    exposure: null,
    finalAtScoring: false,
    classification: "completed",
    startedAtMs: T0,
    scoredAtMs: T0 + 1.2,
    endedAtMs: T0 + 26.5,
    evidence,
  };
}

/** Snapshot at 0 ms: applied before the acknowledgement, so both labels are success. */
export function snapshotZeroDelay(): FixtureRun {
  const ack = applied(operation({ handle: "op_zero", delayMs: 0, mode: "async" }), 0);
  const run = snapshotPending();
  const read = { entry: entry("op_zero", ack.appliedAtMs!), readAtMs: T0 + 1.2 };
  return {
    ...run,
    delayMs: 0,
    endpointLabel: "success",
    terminalLabel: "success",
    recordedLabel: "success",
    finalAtScoring: true,
    endedAtMs: T0 + 1.5,
    evidence: {
      ...(run.evidence as FinalityEvidence),
      ack: { ...ack, ackAtMs: T0 + 0.6 },
      terminal: ack,
      endpointRead: read,
      terminalRead: read,
    },
  };
}

/** Reconciliation at 25 ms: waits for the write and scores the terminal value. */
export function reconciliationPending(): FixtureRun {
  const run = snapshotPending();
  const evidence = run.evidence as FinalityEvidence;
  return {
    ...run,
    condition: "reconciliation",
    recordedLabel: "success",
    finalAtScoring: true,
    scoredAtMs: T0 + 25.9,
    evidence: { ...evidence, scoredAtMs: T0 + 25.9 },
  };
}

/** Verified cancellation at 25 ms: cancelled while pending, re-read after its due time. */
export function cancelledPending(): FixtureRun {
  const ack = operation({ handle: "op_cancel", delayMs: 25, mode: "async" });
  const cancelled: Operation = { ...ack, status: "cancelled", cancelledAtMs: T0 + 1.6 };
  const evidence: FinalityEvidence = {
    ...(snapshotPending().evidence as FinalityEvidence),
    ack,
    endpointRead: { entry: null, readAtMs: T0 + 1.2 },
    cancel: { outcome: "cancelled", confirmed: cancelled },
    terminal: cancelled,
    terminalRead: { entry: null, readAtMs: T0 + 2.1 },
    afterDue: { operation: cancelled, read: { entry: null, readAtMs: T0 + 31 } },
    scoredAtMs: T0 + 2.1,
  };
  return {
    ...snapshotPending(),
    condition: "verified_cancellation",
    endpointLabel: "failure",
    terminalLabel: "failure",
    recordedLabel: "failure",
    finalAtScoring: true,
    scoredAtMs: T0 + 2.1,
    endedAtMs: T0 + 31.2,
    evidence,
  };
}

/** A shared-state pair at 25 ms: A's pending write lands on B's value before B is scored. */
export function sharedPair(): { a: FixtureRun; b: FixtureRun } {
  const aAck = operation({ handle: "op_a", delayMs: 25, mode: "async", namespace: "bl/x/sep" });
  const aTerminal = applied(aAck);
  const evidence: SeparationEvidence = {
    kind: "separation",
    namespaceA: "bl/x/sep",
    namespaceB: "bl/x/sep",
    key: "banking.send_money",
    valueA: { role: "A" },
    valueB: { initialisedBy: "B" },
    aAck,
    aTerminal,
    aEndpointRead: { entry: null, readAtMs: T0 + 1.1 },
    bInit: { entry: entry("initialise", T0 + 1.3), readAtMs: T0 + 1.35 },
    bEndpointRead: { entry: entry("initialise", T0 + 1.3), readAtMs: T0 + 1.8 },
    reset: null,
    bScoringRead: { entry: entry("op_a", aTerminal.appliedAtMs!), readAtMs: T0 + 30.5 },
    namespaceHandles: { "bl/x/sep": ["op_a"] },
    pendingAtEnd: 0,
    serviceFailures: [],
  };
  const common = { test: "separation" as const, condition: "shared", delayMs: 25, classification: "completed" as const, evidence };
  return {
    a: {
      ...common,
      role: "A",
      endpointLabel: "failure",
      terminalLabel: "success",
      recordedLabel: "success",
      exposure: null,
      finalAtScoring: true,
      startedAtMs: T0,
      scoredAtMs: aTerminal.appliedAtMs,
      endedAtMs: T0 + 1.1,
    },
    b: {
      ...common,
      role: "B",
      endpointLabel: "success",
      terminalLabel: "failure",
      recordedLabel: "failure",
      exposure: true,
      finalAtScoring: true,
      startedAtMs: T0 + 1.25,
      scoredAtMs: T0 + 30.5,
      endedAtMs: T0 + 30.5,
    },
  };
}

/** A no-write control's run A: no operation, no claim, no label. */
export function noWriteA(): FixtureRun {
  const pair = sharedPair();
  const ev = pair.a.evidence as SeparationEvidence;
  return {
    ...pair.a,
    condition: "no_write",
    endpointLabel: null,
    terminalLabel: null,
    recordedLabel: null,
    finalAtScoring: null,
    scoredAtMs: null,
    evidence: {
      ...ev,
      aAck: null,
      aTerminal: null,
      aEndpointRead: null,
      bScoringRead: { entry: entry("initialise", T0 + 1.3), readAtMs: T0 + 30.5 },
    },
  };
}

/** A unit that ran out of retries: stored as an environment failure with its voided attempts. */
export function environmentFailure(): FixtureRun {
  return {
    test: "finality",
    condition: "snapshot",
    delayMs: 25,
    role: "single",
    endpointLabel: null,
    terminalLabel: "unresolved",
    recordedLabel: "unresolved",
    exposure: null,
    finalAtScoring: false,
    classification: "environment_failure",
    startedAtMs: T0 + 3,
    scoredAtMs: null,
    endedAtMs: T0 + 400,
    evidence: {
      kind: "environment_failure",
      serviceFailures: [
        { request: "POST /v1/writes", detail: "connection refused", atMs: T0 + 3, attempt: 0 },
        { request: "POST /v1/writes", detail: "connection refused", atMs: T0 + 350, attempt: 1 },
      ],
    },
  };
}

/**
 * Records of RFC 4180 text: fields separated by commas, records ended by CRLF, a field with a comma,
 * quote or line break quoted, quotes inside doubled. Strict: a bare line break or a stray quote
 * outside a quoted field is an error, so output that a spreadsheet would misread fails the test.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  let closed = false; // just after a quoted field's closing quote
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c !== '"') {
        field += c;
      } else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else {
        quoted = false;
        closed = true;
      }
      continue;
    }
    if (c === "," || (c === "\r" && text[i + 1] === "\n")) {
      record.push(field);
      field = "";
      closed = false;
      if (c === "\r") {
        records.push(record);
        record = [];
        i++;
      }
      continue;
    }
    if (closed) throw new Error(`text after a closing quote at ${i}`);
    if (c === '"' && field === "") quoted = true;
    else if (c === '"' || c === "\r" || c === "\n") throw new Error(`${JSON.stringify(c)} outside a quoted field at ${i}`);
    else field += c;
  }
  if (quoted) throw new Error("unterminated quoted field");
  if (field !== "" || record.length > 0 || closed) throw new Error("the last record does not end with CRLF");
  return records;
}

import type { Operation, StoredEntry } from "../../delayed-write/delayed-write-schemas";
import type { InheritedState } from "./inherited-state";
import type { RunClassification } from "./classification";
import type { Label, TerminalLabel } from "./labels";
import type { ReplayUnit } from "./grid";

/** A service read as evidence: what was held, and when the service read it. */
export interface ReadEvidence {
  entry: StoredEntry | null;
  readAtMs: number;
}

export interface ServiceFailureEvidence {
  request: string;
  detail: string;
  status?: number;
  atMs: number;
  attempt: number;
}

/** What a finality trial observed of one of its writes (one state-changing call of the trace, on its own key). */
export interface FinalityWrite {
  key: string;
  expectedValue: unknown;
  /** The operation as the acceptance answer reported it (status at the endpoint). */
  ack: Operation;
  endpointRead: ReadEvidence;
  cancel: { outcome: string; confirmed: Operation } | null;
  /** The operation once terminal (or as it stood when the follow-up budget ran out). */
  terminal: Operation;
  terminalRead: ReadEvidence;
  /** For a cancelled operation: the operation and value re-read after its due time plus a margin. */
  afterDue: { operation: Operation; read: ReadEvidence } | null;
}

/**
 * Everything a finality trial observed, kept as the run's evidence. The trace's first write is at the
 * top level (as for the paper's one-write trace); a trace with several state-changing calls keeps
 * the others, in trace order, in `otherWrites`.
 */
export interface FinalityEvidence extends FinalityWrite {
  kind: "finality";
  namespace: string;
  otherWrites?: FinalityWrite[];
  /** Handles the service lists in this trial's namespace at the end, and how many are still pending. */
  namespaceHandles: string[];
  pendingAtEnd: number;
  scoredAtMs: number;
  serviceFailures: ServiceFailureEvidence[];
}

/** What a separation pair observed on one key: A's write of one state-changing call, and B's value there. */
export interface SeparationWrite {
  key: string;
  valueA: unknown;
  /** A's write as acknowledged, and once terminal; null when A scheduled nothing. */
  aAck: Operation | null;
  aTerminal: Operation | null;
  aEndpointRead: ReadEvidence | null;
  bInit: ReadEvidence;
  bEndpointRead: ReadEvidence;
  bScoringRead: ReadEvidence;
}

/** A pair's evidence: the first key at the top level, the trace's other writes' keys in `otherWrites`. */
export interface SeparationEvidence extends SeparationWrite {
  kind: "separation";
  namespaceA: string;
  namespaceB: string;
  valueB: unknown;
  otherWrites?: SeparationWrite[];
  reset: { entries: StoredEntry[]; pendingOperations: number; resetAtMs: number } | null;
  namespaceHandles: Record<string, string[]>;
  pendingAtEnd: number;
  serviceFailures: ServiceFailureEvidence[];
}

/** Every write of a trial or pair, in trace order. */
export function writesOf(ev: FinalityEvidence): FinalityWrite[];
export function writesOf(ev: SeparationEvidence): SeparationWrite[];
export function writesOf(ev: FinalityEvidence | SeparationEvidence): Array<FinalityWrite | SeparationWrite> {
  return [ev, ...(ev.otherWrites ?? [])];
}

export interface RunRecord {
  test: "finality" | "separation";
  condition: string;
  taskId: string;
  groupId: string;
  scheduleId: number;
  delayMs: number;
  repetition: number;
  role: "single" | "A" | "B";
  namespace: string;
  key: string;
  endpointLabel: Label | null;
  terminalLabel: TerminalLabel | null;
  recordedLabel: TerminalLabel | null;
  finalAtScoring: boolean | null;
  score: number | null;
  measuredDelayMs: number | null;
  exposure: boolean | null;
  classification: RunClassification;
  inheritedState: InheritedState;
  startedAtMs: number;
  endpointAtMs: number | null;
  scoredAtMs: number | null;
  endedAtMs: number | null;
  evidence: FinalityEvidence | SeparationEvidence | { kind: "environment_failure"; serviceFailures: ServiceFailureEvidence[] };
}

/** An open-effects record (paper Table C.1), filled by the tool wrapper and resolved by handle. */
export interface EffectRecord {
  role: "single" | "A" | "B";
  taskId: string;
  groupId: string;
  tracePosition: number;
  action: string;
  arguments: unknown;
  initiatedAtMs: number;
  resource: string;
  controller: string;
  observationHandle: string;
  endpointStatus: Operation["status"];
  possibleTransitions: { from: string; to: string[] };
  relevantUntilMs: number | null;
  crossRunRoute: string;
  terminalStatus: "completed" | "failed" | "cancelled" | "unresolved";
  terminalEvidence: { operation: Operation; read: ReadEvidence | null; cancelOutcome: string | null };
  resolvedAtMs: number | null;
}

export interface UnitResult {
  unit: ReplayUnit;
  runs: RunRecord[];
  effects: EffectRecord[];
}

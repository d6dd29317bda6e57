// A run's events on the service clock, derived from the evidence the replay stored (records.ts).
// Pure: the run page, the API and the tests all call the same functions.
import { z } from "zod";
import { operationSchema, storedEntrySchema, type Operation, type StoredEntry } from "../delayed-write/schemas";

const readSchema = z.object({ entry: storedEntrySchema.nullable(), readAtMs: z.number() });
const serviceFailureSchema = z.object({ request: z.string(), detail: z.string(), atMs: z.number(), attempt: z.number() });

// Only the fields the timeline and the explanation read; stored evidence may carry more.
const finalityEvidenceSchema = z.object({
  kind: z.literal("finality"),
  ack: operationSchema,
  endpointRead: readSchema,
  cancel: z.object({ outcome: z.string(), confirmed: operationSchema }).nullable(),
  terminal: operationSchema,
  terminalRead: readSchema,
  afterDue: z.object({ operation: operationSchema, read: readSchema }).nullable(),
  scoredAtMs: z.number(),
  serviceFailures: z.array(serviceFailureSchema),
});
const separationEvidenceSchema = z.object({
  kind: z.literal("separation"),
  namespaceA: z.string(),
  namespaceB: z.string(),
  aAck: operationSchema.nullable(),
  aTerminal: operationSchema.nullable(),
  aEndpointRead: readSchema.nullable(),
  bInit: readSchema,
  bEndpointRead: readSchema,
  reset: z.object({ pendingOperations: z.number(), resetAtMs: z.number() }).nullable(),
  bScoringRead: readSchema,
  serviceFailures: z.array(serviceFailureSchema),
});
const failedUnitEvidenceSchema = z.object({ kind: z.literal("environment_failure"), serviceFailures: z.array(serviceFailureSchema) });
const runEvidenceSchema = z.discriminatedUnion("kind", [finalityEvidenceSchema, separationEvidenceSchema, failedUnitEvidenceSchema]);

export type RunEvidence = z.infer<typeof runEvidenceSchema>;
export type ReadEvidence = z.infer<typeof readSchema>;
export type FinalityRunEvidence = z.infer<typeof finalityEvidenceSchema>;
export type SeparationRunEvidence = z.infer<typeof separationEvidenceSchema>;

/** The stored evidence in the shape records.ts writes, or null when it is not (the page then shows it raw). */
export function parseRunEvidence(evidence: unknown): RunEvidence | null {
  const parsed = runEvidenceSchema.safeParse(evidence);
  return parsed.success ? parsed.data : null;
}

export type TimelineEventKind =
  | "trace"
  | "request"
  | "acknowledgement"
  | "due"
  | "endpoint"
  | "cancellation"
  | "application"
  | "failure"
  | "reset"
  | "initialisation"
  | "read"
  | "write"
  | "inconclusive"
  | "scoring"
  | "end"
  | "voided_attempt";

export interface TimelineEvent {
  kind: TimelineEventKind;
  /** Whose event: the trial itself (single), or run A or B of a separation pair. */
  actor: "single" | "A" | "B";
  /** Service-clock milliseconds (monotonic). */
  atMs: number;
  /** Milliseconds from this run's start; negative for a paired run's events before it. */
  offsetMs: number;
  label: string;
}

export interface TimelineRun {
  role: string;
  startedAtMs: number;
  scoredAtMs: number | null;
  endedAtMs: number | null;
  recordedLabel: string | null;
  evidence: unknown;
}

type Actor = TimelineEvent["actor"];
type Draft = Omit<TimelineEvent, "offsetMs">;

const ROLE_NAMES: Record<Actor, string> = { single: "The trial", A: "Run A", B: "Run B" };

/** Durations in sentences: one decimal, no trailing zero ("25 ms", "24.9 ms"). */
export const roughMs = (ms: number) => `${Number(ms.toFixed(1))} ms`;

/** Offsets in the timeline: signed, to the microsecond the service clock resolves. */
export const formatOffset = (ms: number) => `${ms < 0 ? "−" : "+"}${Math.abs(ms).toFixed(3)} ms`;

/** What a read found, in words: whose value the key held. */
export function describeEntry(entry: StoredEntry | null, ownHandle: string | null): string {
  if (!entry) return "nothing stored under the key";
  if (entry.writtenBy === ownHandle) return `the value written by operation ${entry.writtenBy}`;
  if (entry.writtenBy === "initialise") return "B's own initial value";
  if (entry.writtenBy === "reset") return "the value the reset restored";
  return `the value written by operation ${entry.writtenBy}`;
}

/** The request, acknowledgement and due time of one write, and how it ended. */
function writeEvents(actor: Actor, ack: Operation, settled: Operation | null): Draft[] {
  const events: Draft[] = [
    { kind: "request", actor, atMs: ack.acceptedAtMs, label: `${ROLE_NAMES[actor]} requested ${ack.mode === "async" ? "an async" : "a sync"} write of ${ack.key} with a ${ack.delayMs} ms delay (operation ${ack.handle})` },
  ];
  if (ack.ackAtMs !== null) events.push({ kind: "acknowledgement", actor, atMs: ack.ackAtMs, label: `The service acknowledged the write; status at acknowledgement: ${ack.status}` });
  if (ack.delayMs > 0) events.push({ kind: "due", actor, atMs: ack.dueAtMs, label: `The write came due (${ack.delayMs} ms after the request)` });
  const op = settled ?? ack;
  if (op.appliedAtMs !== null) {
    const measured = op.measuredDelayMs === null ? "" : ` (measured delay ${op.measuredDelayMs.toFixed(3)} ms)`;
    events.push({ kind: "application", actor, atMs: op.appliedAtMs, label: `The service applied the write${measured}` });
  }
  if (op.cancelledAtMs !== null) events.push({ kind: "cancellation", actor, atMs: op.cancelledAtMs, label: "The service cancelled the write before it was applied" });
  if (op.failedAtMs !== null) events.push({ kind: "failure", actor, atMs: op.failedAtMs, label: `The write failed: ${op.failure ?? "no reason given"}` });
  return events;
}

function finalityEvents(ev: FinalityRunEvidence, run: TimelineRun): Draft[] {
  const handle = ev.ack.handle;
  const events: Draft[] = [
    ...writeEvents("single", ev.ack, ev.afterDue?.operation ?? ev.terminal),
    { kind: "endpoint", actor: "single", atMs: ev.endpointRead.readAtMs, label: `Endpoint read (the interaction ended with the acknowledgement): ${describeEntry(ev.endpointRead.entry, handle)}` },
  ];
  if (ev.terminalRead.readAtMs !== ev.endpointRead.readAtMs) {
    events.push({ kind: "read", actor: "single", atMs: ev.terminalRead.readAtMs, label: `Terminal read, once the operation was ${ev.terminal.status}: ${describeEntry(ev.terminalRead.entry, handle)}` });
  }
  if (ev.afterDue) {
    events.push({ kind: "read", actor: "single", atMs: ev.afterDue.read.readAtMs, label: `Re-read after the due time: operation still ${ev.afterDue.operation.status}, key held ${describeEntry(ev.afterDue.read.entry, handle)}` });
  }
  events.push({ kind: "scoring", actor: "single", atMs: ev.scoredAtMs, label: `Scored: recorded label ${run.recordedLabel ?? "none"}` });
  return events;
}

function separationEvents(ev: SeparationRunEvidence, run: TimelineRun): Draft[] {
  const aHandle = ev.aAck?.handle ?? null;
  const events: Draft[] = ev.aAck ? writeEvents("A", ev.aAck, ev.aTerminal) : [];
  if (ev.aEndpointRead) events.push({ kind: "endpoint", actor: "A", atMs: ev.aEndpointRead.readAtMs, label: `Run A's endpoint read: ${describeEntry(ev.aEndpointRead.entry, aHandle)}` });
  if (run.role === "A" && run.scoredAtMs !== null) events.push({ kind: "scoring", actor: "A", atMs: run.scoredAtMs, label: `Run A scored once its operation was terminal: recorded label ${run.recordedLabel ?? "none"}` });
  if (ev.reset) {
    events.push({ kind: "reset", actor: "B", atMs: ev.reset.resetAtMs, label: `The namespace was reset to B's initial value and read back (${ev.reset.pendingOperations} operations pending)` });
  }
  events.push(
    { kind: "initialisation", actor: "B", atMs: ev.bInit.entry?.writtenAtMs ?? ev.bInit.readAtMs, label: "Run B initialised its own value on the key" },
    { kind: "endpoint", actor: "B", atMs: ev.bEndpointRead.readAtMs, label: `Run B's endpoint read: ${describeEntry(ev.bEndpointRead.entry, aHandle)}` },
    { kind: "scoring", actor: "B", atMs: ev.bScoringRead.readAtMs, label: `Run B scored ${describeEntry(ev.bScoringRead.entry, aHandle)}` },
  );
  return events;
}

/**
 * The run's timeline: its start, each write's request, acknowledgement, due time and end (applied,
 * cancelled or failed), the endpoint and scoring reads, voided attempts, and its end, in service-clock
 * order with offsets from the run's start. A separation run also shows its paired run's events, since
 * exposure is a matter of their order.
 */
export function runTimeline(run: TimelineRun): TimelineEvent[] {
  const actor: Actor = run.role === "A" || run.role === "B" ? run.role : "single";
  const ev = parseRunEvidence(run.evidence);
  // B replays no write: it begins with fresh task state and initialises its own value.
  const start = actor === "B" ? "Run B started with fresh task state" : `${ROLE_NAMES[actor]} started replaying the trace (read-only calls answer from the recording)`;
  const drafts: Draft[] = [{ kind: "trace", actor, atMs: run.startedAtMs, label: start }];
  if (ev?.kind === "finality") drafts.push(...finalityEvents(ev, run));
  if (ev?.kind === "separation") drafts.push(...separationEvents(ev, run));
  for (const failure of ev?.serviceFailures ?? []) {
    drafts.push({ kind: "voided_attempt", actor, atMs: failure.atMs, label: `Attempt ${failure.attempt} voided: ${failure.request}: ${failure.detail}` });
  }
  if (run.endedAtMs !== null) drafts.push({ kind: "end", actor, atMs: run.endedAtMs, label: `${ROLE_NAMES[actor]} ended` });
  // Array.prototype.sort is stable: events at the same instant keep their causal order above.
  return drafts.sort((a, b) => a.atMs - b.atMs).map((event) => ({ ...event, offsetMs: event.atMs - run.startedAtMs }));
}

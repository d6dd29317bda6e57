// A run's events on the service clock, derived from the evidence the replay stored (records.ts).
// Pure: the run page, the API and the tests all call the same functions.
import { z } from "zod";
import { operationSchema, storedEntrySchema, type Operation, type StoredEntry } from "../../delayed-write/delayed-write-schemas";

const readSchema = z.object({ entry: storedEntrySchema.nullable(), readAtMs: z.number() });
const serviceFailureSchema = z.object({ request: z.string(), detail: z.string(), atMs: z.number(), attempt: z.number() });

// Only the fields the timeline reads; stored evidence may carry more. A trace with several
// state-changing calls keeps its first write at the top level and the others in `otherWrites`.
const finalityWriteSchema = z.object({
  key: z.string(),
  ack: operationSchema,
  endpointRead: readSchema,
  cancel: z.object({ outcome: z.string(), confirmed: operationSchema }).nullable(),
  terminal: operationSchema,
  terminalRead: readSchema,
  afterDue: z.object({ operation: operationSchema, read: readSchema }).nullable(),
});
const finalityEvidenceSchema = finalityWriteSchema.extend({
  kind: z.literal("finality"),
  otherWrites: z.array(finalityWriteSchema).optional(),
  scoredAtMs: z.number(),
  serviceFailures: z.array(serviceFailureSchema),
});
const separationWriteSchema = z.object({
  key: z.string(),
  aAck: operationSchema.nullable(),
  aTerminal: operationSchema.nullable(),
  aEndpointRead: readSchema.nullable(),
  bInit: readSchema,
  bEndpointRead: readSchema,
  bScoringRead: readSchema,
});
const separationEvidenceSchema = separationWriteSchema.extend({
  kind: z.literal("separation"),
  namespaceA: z.string(),
  namespaceB: z.string(),
  otherWrites: z.array(separationWriteSchema).optional(),
  reset: z.object({ pendingOperations: z.number(), resetAtMs: z.number() }).nullable(),
  serviceFailures: z.array(serviceFailureSchema),
});
const failedUnitEvidenceSchema = z.object({ kind: z.literal("environment_failure"), serviceFailures: z.array(serviceFailureSchema) });
const runEvidenceSchema = z.discriminatedUnion("kind", [finalityEvidenceSchema, separationEvidenceSchema, failedUnitEvidenceSchema]);

export type RunEvidence = z.infer<typeof runEvidenceSchema>;
export type ReadEvidence = z.infer<typeof readSchema>;
export type FinalityRunEvidence = z.infer<typeof finalityEvidenceSchema>;
export type SeparationRunEvidence = z.infer<typeof separationEvidenceSchema>;
type FinalityWriteEvidence = z.infer<typeof finalityWriteSchema>;
type SeparationWriteEvidence = z.infer<typeof separationWriteSchema>;

/** Every write of a trial or pair, in trace order (the first at the top level). */
function writesOfEvidence(ev: FinalityRunEvidence): FinalityWriteEvidence[];
function writesOfEvidence(ev: SeparationRunEvidence): SeparationWriteEvidence[];
function writesOfEvidence(ev: FinalityRunEvidence | SeparationRunEvidence): Array<FinalityWriteEvidence | SeparationWriteEvidence> {
  return [ev, ...(ev.otherWrites ?? [])];
}

/** "" for a trace's only write; otherwise which write of how many, and its key, so that the events of several writes can be told apart. */
const writeName = (index: number, count: number, key: string) => (count === 1 ? "" : ` [write ${index + 1} of ${count}, key ${key}]`);

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
function writeEvents(actor: Actor, ack: Operation, settled: Operation | null, name = ""): Draft[] {
  const events: Draft[] = [
    {
      kind: "request",
      actor,
      atMs: ack.acceptedAtMs,
      label: `${ROLE_NAMES[actor]} requested ${ack.mode === "async" ? "an async" : "a sync"} write of ${ack.key} with a ${ack.delayMs} ms delay (operation ${ack.handle})${name}`,
    },
  ];
  if (ack.ackAtMs !== null)
    events.push({
      kind: "acknowledgement",
      actor,
      atMs: ack.ackAtMs,
      label: `The service acknowledged the write; status at acknowledgement: ${ack.status}${name}`,
    });
  if (ack.delayMs > 0)
    events.push({ kind: "due", actor, atMs: ack.dueAtMs, label: `The write came due (${ack.delayMs} ms after the request)${name}` });
  const op = settled ?? ack;
  if (op.appliedAtMs !== null) {
    const measured = op.measuredDelayMs === null ? "" : ` (measured delay ${op.measuredDelayMs.toFixed(3)} ms)`;
    events.push({ kind: "application", actor, atMs: op.appliedAtMs, label: `The service applied the write${measured}${name}` });
  }
  if (op.cancelledAtMs !== null)
    events.push({
      kind: "cancellation",
      actor,
      atMs: op.cancelledAtMs,
      label: `The service cancelled the write before it was applied${name}`,
    });
  if (op.failedAtMs !== null)
    events.push({ kind: "failure", actor, atMs: op.failedAtMs, label: `The write failed: ${op.failure ?? "no reason given"}${name}` });
  return events;
}

function finalityEvents(ev: FinalityRunEvidence, run: TimelineRun): Draft[] {
  const writes = writesOfEvidence(ev);
  const events = writes.flatMap((w, i) => {
    const name = writeName(i, writes.length, w.key);
    const handle = w.ack.handle;
    const own: Draft[] = [
      ...writeEvents("single", w.ack, w.afterDue?.operation ?? w.terminal, name),
      {
        kind: "endpoint",
        actor: "single",
        atMs: w.endpointRead.readAtMs,
        label: `Endpoint read (the interaction ended with the acknowledgement): ${describeEntry(w.endpointRead.entry, handle)}${name}`,
      },
    ];
    if (w.terminalRead.readAtMs !== w.endpointRead.readAtMs) {
      own.push({
        kind: "read",
        actor: "single",
        atMs: w.terminalRead.readAtMs,
        label: `Terminal read, once the operation was ${w.terminal.status}: ${describeEntry(w.terminalRead.entry, handle)}${name}`,
      });
    }
    if (w.afterDue) {
      own.push({
        kind: "read",
        actor: "single",
        atMs: w.afterDue.read.readAtMs,
        label: `Re-read after the due time: operation still ${w.afterDue.operation.status}, key held ${describeEntry(w.afterDue.read.entry, handle)}${name}`,
      });
    }
    return own;
  });
  events.push({ kind: "scoring", actor: "single", atMs: ev.scoredAtMs, label: `Scored: recorded label ${run.recordedLabel ?? "none"}` });
  return events;
}

/**
 * Why a replay run is scored before its own endpoint, in words, or null when it is not. Only a
 * separation pair's run A can be: its recorded label is its terminal label, so its scoring instant is
 * the one its last write became terminal, not a read. Under verified reset its endpoint read waits
 * for that (the pair reads A's endpoint only once A's writes are terminal, then resets B's value); at
 * delay 0 the write is applied on its acknowledgement, before the endpoint read.
 */
export function scoringBeforeEndpoint(run: {
  role: string;
  condition: string;
  endpointAtMs: number | null;
  scoredAtMs: number | null;
}): string | null {
  if (run.role !== "A" || run.endpointAtMs === null || run.scoredAtMs === null || run.scoredAtMs >= run.endpointAtMs) return null;
  const why =
    run.condition === "verified_reset"
      ? "under verified reset the pair reads A's endpoint only after waiting for A's writes to be terminal"
      : "its write was applied when acknowledged, before the endpoint read";
  return `Scored ${roughMs(run.endpointAtMs - run.scoredAtMs)} before its endpoint, by design: run A's label is its terminal label, fixed the instant its last write became terminal, and ${why}.`;
}

function separationEvents(ev: SeparationRunEvidence, run: TimelineRun): Draft[] {
  const writes = writesOfEvidence(ev);
  const events: Draft[] = writes.flatMap((w, i) => {
    const name = writeName(i, writes.length, w.key);
    const own = w.aAck ? writeEvents("A", w.aAck, w.aTerminal, name) : [];
    if (w.aEndpointRead)
      own.push({
        kind: "endpoint",
        actor: "A",
        atMs: w.aEndpointRead.readAtMs,
        label: `Run A's endpoint read: ${describeEntry(w.aEndpointRead.entry, w.aAck?.handle ?? null)}${name}`,
      });
    return own;
  });
  if (run.role === "A" && run.scoredAtMs !== null)
    events.push({
      kind: "scoring",
      actor: "A",
      atMs: run.scoredAtMs,
      label: `Run A scored the instant its operation${writes.length === 1 ? " was" : "s were"} terminal (its terminal label is its recorded one, so this may precede its endpoint read): recorded label ${run.recordedLabel ?? "none"}`,
    });
  if (ev.reset) {
    events.push({
      kind: "reset",
      actor: "B",
      atMs: ev.reset.resetAtMs,
      label: `The namespace was reset to B's initial value and read back (${ev.reset.pendingOperations} operations pending)`,
    });
  }
  writes.forEach((w, i) => {
    const name = writeName(i, writes.length, w.key);
    const aHandle = w.aAck?.handle ?? null;
    events.push(
      {
        kind: "initialisation",
        actor: "B",
        atMs: w.bInit.entry?.writtenAtMs ?? w.bInit.readAtMs,
        label: `Run B initialised its own value on the key${name}`,
      },
      {
        kind: "endpoint",
        actor: "B",
        atMs: w.bEndpointRead.readAtMs,
        label: `Run B's endpoint read: ${describeEntry(w.bEndpointRead.entry, aHandle)}${name}`,
      },
      {
        kind: "scoring",
        actor: "B",
        atMs: w.bScoringRead.readAtMs,
        label: `Run B scored ${describeEntry(w.bScoringRead.entry, aHandle)}${name}`,
      },
    );
  });
  return events;
}

/** One write's open interval: from its request to the moment it ended (applied, cancelled or failed), or null while it never ended in the evidence. */
export interface WriteInterval {
  actor: "single" | "A";
  key: string;
  handle: string;
  /** Milliseconds from the run's start. */
  fromMs: number;
  toMs: number | null;
  /** As the acceptance answer reported it. */
  statusAtEndpoint: string;
  /** How it ended, or its status when the evidence stops. */
  resolution: string;
  /** Ended at or before the run was scored (null when the run was not scored, or ended never). */
  endedByScoring: boolean | null;
}

/** Every write of the run (a trial's, or run A's of a pair) with its open interval and resolution, in trace order. */
export function writeIntervals(run: TimelineRun): WriteInterval[] {
  const ev = parseRunEvidence(run.evidence);
  const ops =
    ev?.kind === "finality"
      ? writesOfEvidence(ev).map((w) => ({
          actor: "single" as const,
          key: w.key,
          ack: w.ack,
          settled: w.afterDue?.operation ?? w.terminal,
        }))
      : ev?.kind === "separation" && run.role !== "B"
        ? writesOfEvidence(ev).flatMap((w) =>
            w.aAck ? [{ actor: "A" as const, key: w.key, ack: w.aAck, settled: w.aTerminal ?? w.aAck }] : [],
          )
        : [];
  return ops.map(({ actor, key, ack, settled }) => {
    const endedAt = settled.appliedAtMs ?? settled.cancelledAtMs ?? settled.failedAtMs;
    return {
      actor,
      key,
      handle: ack.handle,
      fromMs: ack.acceptedAtMs - run.startedAtMs,
      toMs: endedAt === null ? null : endedAt - run.startedAtMs,
      statusAtEndpoint: ack.status,
      resolution: settled.status,
      endedByScoring: endedAt === null || run.scoredAtMs === null ? null : endedAt <= run.scoredAtMs,
    };
  });
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
  const start =
    actor === "B"
      ? "Run B started with fresh task state"
      : `${ROLE_NAMES[actor]} started replaying the trace (read-only calls answer from the recording)`;
  const drafts: Draft[] = [{ kind: "trace", actor, atMs: run.startedAtMs, label: start }];
  if (ev?.kind === "finality") drafts.push(...finalityEvents(ev, run));
  if (ev?.kind === "separation") drafts.push(...separationEvents(ev, run));
  for (const failure of ev?.serviceFailures ?? []) {
    drafts.push({
      kind: "voided_attempt",
      actor,
      atMs: failure.atMs,
      label: `Attempt ${failure.attempt} voided: ${failure.request}: ${failure.detail}`,
    });
  }
  if (run.endedAtMs !== null) drafts.push({ kind: "end", actor, atMs: run.endedAtMs, label: `${ROLE_NAMES[actor]} ended` });
  // Array.prototype.sort is stable: events at the same instant keep their causal order above.
  return drafts.sort((a, b) => a.atMs - b.atMs).map((event) => ({ ...event, offsetMs: event.atMs - run.startedAtMs }));
}

// The live-run rules (docs/recording.md, Live runs), pure: which events a run admits, and the run record its events
// make once it is scored. The record then goes through ingestion's own steps, so a live run is
// audited exactly as an ingested one (same rules, same figures). Times are epoch milliseconds.
import { canonicalJson } from "../../content-hash";
import { isoTime as iso } from "../../format/time";
import { issueMessage } from "../../http/input";
import { findUnstorable, printable } from "../../http/storable";
import { MAX_RUN_MODEL_CALLS, type EffectRecord, type RunRecord } from "../run-record-schema";
import type { ResolutionStatus, StatusAtScoring } from "../vocabulary";
import { isTerminalStatus } from "../finality";
import { liveEventSchema, type EventRefusal, type LiveEvent } from "./live-run-schemas";

/** The record's own limits (runRecordSchema): a live run that passed them could never be stored. */
export const LIVE_RUN_LIMITS = { effect_requested: 1_000, touch: 10_000, reset: 1_000, model_call: MAX_RUN_MODEL_CALLS } as const;

export interface StatusPoint {
  status: StatusAtScoring;
  atMs: number;
}

/** What a run holds already, as admission needs it. */
export interface StoredEvidence {
  startedAtMs: number;
  /** Each requested effect's request time. */
  effects: ReadonlyMap<string, number>;
  /** Each effect's statuses, in time order. */
  statuses: ReadonlyMap<string, readonly StatusPoint[]>;
  /** Events stored, by type. */
  counts: Readonly<Record<keyof typeof LIVE_RUN_LIMITS, number>>;
  /** The canonical JSON of stored events whose ids the batch reuses. */
  storedById: ReadonlyMap<string, string>;
  /** Statuses kept for effects not requested yet, by effect, in arrival order (admitted with holdStatusesOfUnknownEffects). */
  held?: ReadonlyMap<string, readonly HeldStatus[]>;
}

/** A stored status of an effect whose request had not come when it was admitted. */
export interface HeldStatus {
  eventId: string;
  status: StatusAtScoring;
  atMs: number;
}

/** A held status its effect's request showed invalid (timed before it, or leaving a terminal state): to be deleted, and reported. */
export interface DroppedStatus {
  eventId: string;
  effectId: string;
  code: "before_request" | "leaves_terminal";
  message: string;
}

export interface AdmissionOptions {
  /**
   * Keep a status of an effect not requested yet (rather than refuse it, unknown_effect), to be checked
   * when the request comes: the OTLP receiver's, whose spans come in any order. The live-run routes refuse it.
   */
  holdStatusesOfUnknownEffects?: boolean;
}

export interface AdmittedEvent {
  index: number;
  event: LiveEvent;
}

export interface Admission {
  accepted: AdmittedEvent[];
  /** Events sent again with the same content: accepted, not stored twice. */
  duplicates: number;
  errors: EventRefusal[];
  /** Accepted events timed before the run's start. */
  flagged: { index: number; code: "clock_skew"; message: string }[];
  /** Held statuses (stored.held) that an effect's request admitted now shows invalid. */
  dropped: DroppedStatus[];
}

const LIMIT_NOUN = { effect_requested: "effects", touch: "touches", reset: "resets", model_call: "model calls" } as const;

/**
 * Which of a request's events a run admits, in any order: each is parsed on its own, effects
 * requested in the batch before any status (so a status may come in the same request as its
 * effect). Refused, each alone with its field named: an event its schema refuses; an eventId reused
 * with other content; a second request of one effectId; a status of an effect never requested, or
 * timed before its request; a status that would move an effect out of a terminal state (a
 * different status after, or a terminal one before a different later status); an event over the
 * record's limits. An event before the run's start is admitted and flagged (clock skew).
 * With holdStatusesOfUnknownEffects, a status of an effect not requested yet is admitted and held (a
 * record leaves it out); when the effect's request is admitted, in this call or a later one, its held
 * statuses are checked in their arrival order as if they had come just after it, and each one refused
 * then is dropped (answered in `dropped`).
 */
export function admitEvents(stored: StoredEvidence, items: readonly unknown[], options: AdmissionOptions = {}): Admission {
  const admission: Admission = { accepted: [], duplicates: 0, errors: [], flagged: [], dropped: [] };
  const refuse = (index: number, code: string, message: string, field?: string) => {
    const path = field === undefined ? `events.${index}` : `events.${index}.${field}`;
    admission.errors.push({ index, code, message: `${path}: ${message}`, field: path });
  };
  const parsed: { index: number; event: LiveEvent }[] = [];
  items.forEach((raw, index) => {
    const unstorable = findUnstorable(raw);
    if (unstorable) return refuse(index, "invalid_event", unstorable.message, unstorable.path.join("."));
    const result = liveEventSchema.safeParse(raw);
    if (result.success) return parsed.push({ index, event: result.data });
    const issue = result.error.issues[0]!;
    const keys = issue.code === "unrecognized_keys" ? issue.keys.map(printable) : [];
    const field = [...issue.path.map((p) => printable(String(p))), ...keys.slice(0, 1)].join(".") || undefined;
    refuse(index, "invalid_event", keys.length > 0 ? `unknown field(s): ${keys.join(", ")}` : issueMessage(issue), field);
  });

  const effects = new Map(stored.effects);
  const statuses = new Map<string, StatusPoint[]>([...stored.statuses].map(([id, points]) => [id, [...points]]));
  const counts = { ...stored.counts };
  // An event's canonical JSON is made only when its id comes again (most never do; making it for each was a fifth of admission's time).
  const seen = new Map<string, string | LiveEvent>(stored.storedById);
  const canonicalOf = (event: string | LiveEvent) => (typeof event === "string" ? event : canonicalJson(event));
  const requestsFirst = [...parsed].sort((a, b) => rank(a.event) - rank(b.event) || a.index - b.index);
  for (const { index, event } of requestsFirst) {
    const earlier = seen.get(event.eventId);
    if (earlier !== undefined) {
      if (canonicalOf(earlier) === canonicalJson(event)) admission.duplicates++;
      else refuse(index, "event_id_conflict", `eventId ${event.eventId} was sent before with other content`, "eventId");
      continue;
    }
    const atMs = Date.parse(event.at);
    const held = event.type === "effect_status" && options.holdStatusesOfUnknownEffects === true && !effects.has(event.effectId);
    const refusal = held ? null : refusalOf(event, atMs, effects, statuses, counts);
    if (refusal) {
      refuse(index, refusal.code, refusal.message, refusal.field);
      continue;
    }
    seen.set(event.eventId, event);
    if (event.type === "effect_requested") {
      effects.set(event.effectId, atMs);
      for (const status of stored.held?.get(event.effectId) ?? []) {
        const dropped = statusRefusalOf(event.effectId, status.status, status.atMs, effects, statuses);
        if (dropped)
          admission.dropped.push({ eventId: status.eventId, effectId: event.effectId, code: dropped.code, message: dropped.message });
        else insertInTimeOrder(statuses, event.effectId, { status: status.status, atMs: status.atMs });
      }
    }
    if (event.type === "effect_status" && !held) insertInTimeOrder(statuses, event.effectId, { status: event.status, atMs });
    if (event.type !== "effect_status") counts[event.type]++;
    admission.accepted.push({ index, event });
    if (atMs < stored.startedAtMs)
      admission.flagged.push({
        index,
        code: "clock_skew",
        message: `events.${index}.at is before the run's start (${new Date(stored.startedAtMs).toISOString()}): kept as sent and flagged on the run`,
      });
  }
  admission.accepted.sort((a, b) => a.index - b.index);
  admission.errors.sort((a, b) => a.index - b.index);
  admission.flagged.sort((a, b) => a.index - b.index);
  return admission;
}

const rank = (event: LiveEvent) => (event.type === "effect_requested" ? 0 : 1);

function insertInTimeOrder(statuses: Map<string, StatusPoint[]>, effectId: string, point: StatusPoint) {
  const points = statuses.get(effectId) ?? [];
  const at = points.findIndex((p) => p.atMs > point.atMs);
  points.splice(at === -1 ? points.length : at, 0, point);
  statuses.set(effectId, points);
}

function refusalOf(
  event: LiveEvent,
  atMs: number,
  effects: ReadonlyMap<string, number>,
  statuses: ReadonlyMap<string, readonly StatusPoint[]>,
  counts: Readonly<Record<keyof typeof LIVE_RUN_LIMITS, number>>,
): { code: string; message: string; field?: string } | null {
  if (event.type !== "effect_status") {
    if (event.type === "effect_requested" && effects.has(event.effectId))
      return { code: "duplicate_effect", message: `effect ${event.effectId} was requested before, by another event`, field: "effectId" };
    const limit = LIVE_RUN_LIMITS[event.type];
    if (counts[event.type] >= limit)
      return { code: "too_many_events", message: `a run holds at most ${limit} ${LIMIT_NOUN[event.type]}`, field: "type" };
    return null;
  }
  if (!effects.has(event.effectId))
    return { code: "unknown_effect", message: `effect ${event.effectId} has no effect_requested event in this run`, field: "effectId" };
  return statusRefusalOf(event.effectId, event.status, atMs, effects, statuses);
}

/** Why a status of a requested effect cannot be admitted: timed before the request, or moving the effect out of a terminal state. */
function statusRefusalOf(
  effectId: string,
  status: StatusAtScoring,
  atMs: number,
  effects: ReadonlyMap<string, number>,
  statuses: ReadonlyMap<string, readonly StatusPoint[]>,
): { code: "before_request" | "leaves_terminal"; message: string; field: string } | null {
  const requestedAtMs = effects.get(effectId)!;
  if (atMs < requestedAtMs)
    return {
      code: "before_request",
      message: `the status is before the effect was requested (${new Date(requestedAtMs).toISOString()})`,
      field: "at",
    };
  for (const point of statuses.get(effectId) ?? []) {
    if (point.status === status) continue;
    if (isTerminalStatus(point.status) && point.atMs <= atMs)
      return {
        code: "leaves_terminal",
        message: `effect ${effectId} was ${point.status} at ${new Date(point.atMs).toISOString()}: a status cannot move out of a terminal state`,
        field: "status",
      };
    if (isTerminalStatus(status) && point.atMs >= atMs)
      return {
        code: "leaves_terminal",
        message: `effect ${effectId} is ${point.status} at ${new Date(point.atMs).toISOString()}, after this ${status}: a status cannot move out of a terminal state`,
        field: "status",
      };
  }
  return null;
}

export interface LiveRunHead {
  externalId: string;
  taskId: string;
  groupId: string | null;
  attempt: number | null;
  startedAtMs: number;
}

export type LiveOutcome =
  | {
      scoredAtMs: number;
      endpointLabel: "success" | "failure";
      score?: number;
      terminalLabel?: "success" | "failure";
      threshold?: number;
      scoredOn?: string[];
    }
  | { unscoredReason: string };

/** The source a resolution names when the status that carried its evidence did not say one. */
export const LIVE_EVIDENCE_SOURCE = "live-run event";

/**
 * An effect's resolution among its statuses (in time order): the first terminal status that carries
 * evidence, else the latest evidence that could not tell (`unknown`). A status without evidence is the
 * harness's word and never a resolution: a tool's own "done" is not system evidence.
 */
function resolutionOf<S extends { event: Extract<LiveEvent, { type: "effect_status" }> }>(statuses: readonly S[]): S | undefined {
  const evidenced = statuses.filter((s) => s.event.evidence !== undefined);
  return evidenced.find((s) => isTerminalStatus(s.event.status)) ?? evidenced.findLast((s) => s.event.status === "unknown");
}
/** toISOString's form: an event's time already in it is used as sent (a Date per time was a third of making a record). */
const ISO_FORM = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The run record a live run's events make (stored events, in time order, ties in arrival order).
 * An effect's status at scoring is its last status at or before the scoring time (`pending` when it
 * had none yet); its acknowledgement is its first status; its resolution is its first terminal
 * status that carries evidence (resolutionOf). An unscored run's effects carry their latest status.
 * The run starts at the earliest of its declared start and its events (clock skew is flagged at
 * admission, the times kept as sent). Made from admitted events and a head and outcome their own
 * schemas took, the record is one runRecordSchema accepts as it is (held by its test over random
 * runs), so it is stored without being parsed again (that parse was a tenth of the OTLP receiver's time).
 */
export function liveRunRecord(head: LiveRunHead, events: readonly LiveEvent[], outcome: LiveOutcome): RunRecord {
  const timed = events.map((event, order) => {
    const atMs = Date.parse(event.at);
    return { event, atMs, at: ISO_FORM.test(event.at) ? event.at : iso(atMs), order };
  });
  timed.sort((a, b) => a.atMs - b.atMs || a.order - b.order);
  const scoredAtMs = "scoredAtMs" in outcome ? outcome.scoredAtMs : Number.POSITIVE_INFINITY;
  const statusesOf = new Map<string, { event: Extract<LiveEvent, { type: "effect_status" }>; atMs: number; at: string }[]>();
  for (const { event, atMs, at } of timed) {
    if (event.type !== "effect_status") continue;
    const statuses = statusesOf.get(event.effectId) ?? [];
    statuses.push({ event, atMs, at });
    statusesOf.set(event.effectId, statuses);
  }
  const startedAtMs = timed.reduce((earliest, t) => Math.min(earliest, t.atMs), Math.min(head.startedAtMs, scoredAtMs));

  const effects: EffectRecord[] = [];
  const record: RunRecord = {
    externalId: head.externalId,
    taskId: head.taskId,
    ...(head.groupId !== null && { groupId: head.groupId }),
    ...(head.attempt !== null && { attempt: head.attempt }),
    startedAt: iso(startedAtMs),
    toolCalls: [],
    effects,
    touches: [],
    resets: [],
  };
  for (const { event, at } of timed) {
    if (event.type === "effect_requested") {
      const statuses = statusesOf.get(event.effectId) ?? [];
      const atScoring = statuses.filter((s) => s.atMs <= scoredAtMs).at(-1);
      const resolution = resolutionOf(statuses);
      const detail = statuses.findLast((s) => s.event.detail !== undefined)?.event.detail;
      const handle = event.handle ?? statuses.find((s) => s.event.handle !== undefined)?.event.handle;
      effects.push({
        effectId: event.effectId,
        tool: event.tool,
        ...(event.callId !== undefined && { callId: event.callId }),
        tracePosition: effects.length,
        ...(event.arguments !== undefined && { arguments: event.arguments }),
        ...(event.surface !== undefined && { surface: event.surface }),
        ...(handle !== undefined && { handle }),
        ...(event.public !== undefined && { public: event.public }),
        requestedAt: at,
        ...(statuses[0] && { acknowledgedAt: statuses[0].at }),
        statusAtScoring: atScoring?.event.status ?? "pending",
        ...(detail !== undefined && { notes: detail }),
        ...(resolution && {
          resolution: {
            status: resolution.event.status as ResolutionStatus,
            at: resolution.at,
            evidence: resolution.event.evidence!,
            verifiedBy: resolution.event.source ?? LIVE_EVIDENCE_SOURCE,
          },
        }),
      });
      record.toolCalls!.push({
        ...(event.callId !== undefined && { callId: event.callId }),
        tool: event.tool,
        at,
        ...(event.arguments !== undefined && { arguments: event.arguments }),
      });
    } else if (event.type === "touch") {
      record.touches!.push({
        surface: event.surface,
        op: event.op,
        at,
        ...(event.public !== undefined && { public: event.public }),
      });
    } else if (event.type === "model_call") {
      const { eventId: _eventId, type: _type, at: _at, ...call } = event;
      (record.modelCalls ??= []).push({ ...call, startedAt: at });
    } else if (event.type === "reset") {
      record.resets!.push({
        surface: event.surface,
        at,
        verified: event.verified,
        ...(event.evidence !== undefined && { evidence: event.evidence }),
      });
    }
  }
  if ("unscoredReason" in outcome) return { ...record, unscoredReason: outcome.unscoredReason };
  return {
    ...record,
    scoredAt: iso(outcome.scoredAtMs),
    endpointLabel: outcome.endpointLabel,
    ...(outcome.score !== undefined && { score: outcome.score }),
    ...(outcome.terminalLabel !== undefined && { terminalLabel: outcome.terminalLabel }),
    ...(outcome.threshold !== undefined && { threshold: outcome.threshold }),
    ...(outcome.scoredOn !== undefined && { scoredOn: outcome.scoredOn }),
  };
}

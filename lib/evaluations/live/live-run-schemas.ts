// Live runs' boundaries (docs/recording.md, Live runs): a harness opens a run, sends its events as
// they happen (in any order, more than once), then scores it. One schema each, shared by the routes,
// the typed client, the MCP recorder and the OTLP receiver (which turns spans into these events).
// Names are a contract: harnesses write them.
import { z } from "zod";
import { int4, UnparsedItems } from "../../http/storable";
import { EFFECT_STATUSES, FINALITIES, LABELS, text, time } from "../vocabulary";
import { evidenceSchema, modelCallSchema } from "../run-record-schema";

/** Open until the harness scores it (`scored`) or closes it without a score (`unscored`), or until its timeout stores it unscored (`expired`). */
export const LIVE_RUN_STATES = ["open", "scored", "unscored", "expired"] as const;
export type LiveRunState = (typeof LIVE_RUN_STATES)[number];

/** Most events one request may carry; a run's own limits are the ingest record's (1,000 effects, 10,000 touches, 1,000 resets). */
export const MAX_EVENTS_PER_REQUEST = 5_000;
export const MAX_LIVE_EVENTS_BODY_BYTES = 16 * 1024 * 1024;

/** POST /api/v1/evaluations/{id}/live-runs */
export const openLiveRunBodySchema = z.strictObject({
  externalId: text("externalId", 200),
  taskId: text("taskId", 200),
  attempt: int4("attempt").optional(),
  /** The harness's clock; the server's time of opening when absent. */
  startedAt: time("startedAt").optional(),
  groupId: text("groupId", 200).optional(),
});
export type OpenLiveRunBody = z.infer<typeof openLiveRunBodySchema>;
export const openLiveRunAnswerSchema = z.object({ externalId: z.string(), created: z.boolean(), state: z.enum(LIVE_RUN_STATES) });
export type OpenLiveRunAnswer = z.infer<typeof openLiveRunAnswerSchema>;

const eventId = text("eventId", 200);

/** A tool call the agent made: an effect, requested at `at`. `surface` counts as a write to it at `at`. */
export const effectRequestedEventSchema = z.strictObject({
  eventId,
  type: z.literal("effect_requested"),
  at: time("at"),
  effectId: text("effectId", 200),
  tool: text("tool", 200),
  surface: text("surface").optional(),
  handle: text("handle").optional(),
  callId: text("callId", 200).optional(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  public: z.boolean("public must be true or false").optional(),
});

/**
 * What became of an effect at `at`: its first status is its acknowledgement. Without `evidence` a
 * status is the harness's word (what the tool or harness reported): it proves an effect terminal only
 * for a `sync_confirmed` tool. With `evidence` it is a resolution (system evidence, from `source`):
 * the first terminal one is the effect's resolution, whatever its class. `detail` keeps the harness's
 * own words (an error message) as the effect's note, never as evidence. `handle` gives the effect its
 * handle when it is learnt only from the answer (an MCP task's id comes with the acknowledgement); the
 * request's own handle wins.
 */
export const effectStatusEventSchema = z.strictObject({
  eventId,
  type: z.literal("effect_status"),
  at: time("at"),
  effectId: text("effectId", 200),
  status: z.enum(EFFECT_STATUSES, `status must be one of ${EFFECT_STATUSES.join(", ")}`),
  evidence: evidenceSchema.optional(),
  /** Who or what produced the evidence (a reconciler, `MCP tasks/get`); "live-run event" when not said. */
  source: text("source", 200).optional(),
  detail: text("detail", 4_000).optional(),
  handle: text("handle").optional(),
});

export const touchEventSchema = z.strictObject({
  eventId,
  type: z.literal("touch"),
  at: time("at"),
  surface: text("surface"),
  op: z.enum(["read", "write"], "op must be read or write"),
  public: z.boolean("public must be true or false").optional(),
});

export const resetEventSchema = z.strictObject({
  eventId,
  type: z.literal("reset"),
  at: time("at"),
  surface: text("surface"),
  verified: z.boolean("verified must be true or false"),
  evidence: evidenceSchema.optional(),
});

/** A call of the agent's model, started at `at` (the run record's modelCalls item: model, duration, tokens, a failed attempt's error). */
export const modelCallEventSchema = modelCallSchema.omit({ startedAt: true, messagePosition: true }).extend({
  eventId,
  type: z.literal("model_call"),
  at: time("at"),
});

export const LIVE_EVENT_TYPES = ["effect_requested", "effect_status", "touch", "reset", "model_call"] as const;
export const liveEventSchema = z.discriminatedUnion(
  "type",
  [effectRequestedEventSchema, effectStatusEventSchema, touchEventSchema, resetEventSchema, modelCallEventSchema],
  `type must be one of ${LIVE_EVENT_TYPES.join(", ")}`,
);
export type LiveEvent = z.infer<typeof liveEventSchema>;

/** POST …/live-runs/{externalId}/events: the events left unparsed, so that one bad event refuses only itself. */
export const liveEventsEnvelopeSchema = z.strictObject({
  events: z
    .array(z.unknown(), "events must be an array")
    .min(1, "events must not be empty")
    .max(MAX_EVENTS_PER_REQUEST, `events must hold at most ${MAX_EVENTS_PER_REQUEST} events`)
    .transform((items) => new UnparsedItems(items)),
});

const refusalSchema = z.object({ index: z.number(), code: z.string(), message: z.string(), field: z.string().optional() });
export type EventRefusal = z.infer<typeof refusalSchema>;
/**
 * The events' answer: `accepted` counts the events stored now or already (a re-sent event is accepted
 * again, not stored twice); `errors` one per refused event; `flagged` the accepted events timed before
 * the run's start (clock skew: kept as sent, and counted on the run).
 */
export const liveEventsAnswerSchema = z.object({
  accepted: z.number(),
  errors: z.array(refusalSchema),
  duplicates: z.number(),
  flagged: z.array(z.object({ index: z.number(), code: z.literal("clock_skew"), message: z.string() })),
  /**
   * Statuses an earlier request had kept for an effect not requested yet (only the OTLP receiver keeps them) that this request's
   * effect_requested shows invalid: deleted, each with the refusal it would have had (`before_request`, `leaves_terminal`).
   * Absent when there are none.
   */
  dropped: z
    .array(
      z.object({ eventId: z.string(), effectId: z.string(), code: z.enum(["before_request", "leaves_terminal"]), message: z.string() }),
    )
    .optional(),
  state: z.enum(LIVE_RUN_STATES),
});
export type LiveEventsAnswer = z.infer<typeof liveEventsAnswerSchema>;

/**
 * POST …/live-runs/{externalId}/score: the endpoint label, at `at` (the server's time when absent).
 * `unscoredReason` instead closes a run the harness could not score (the Python client sends the
 * exception's type): it is stored unscored, in no rate's population.
 */
export const scoreLiveRunBodySchema = z
  .strictObject({
    endpointLabel: z.enum(LABELS, "endpointLabel must be success or failure").optional(),
    score: z.number("score must be a number").finite().optional(),
    at: time("at").optional(),
    terminalLabel: z.enum(LABELS, "terminalLabel must be success or failure").optional(),
    threshold: z.number("threshold must be a number").finite().optional(),
    scoredOn: z.array(text("scoredOn item")).max(100).optional(),
    unscoredReason: text("unscoredReason", 1_000).optional(),
  })
  .superRefine((body, ctx) => {
    if (body.unscoredReason === undefined && body.endpointLabel === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["endpointLabel"],
        message: "endpointLabel must be success or failure (or give unscoredReason for a run that was never scored)",
      });
    if (body.unscoredReason !== undefined)
      for (const field of ["endpointLabel", "score", "terminalLabel", "scoredOn"] as const)
        if (body[field] !== undefined)
          ctx.addIssue({ code: "custom", path: [field], message: `${field} must be absent when unscoredReason is given` });
  });
export type ScoreLiveRunBody = z.infer<typeof scoreLiveRunBodySchema>;

export const scoreLiveRunAnswerSchema = z.object({
  finality: z.enum(FINALITIES),
  /** The unresolved reason, or the unscored one; `evidence_arriving` when a recorder of the run had not delivered what it saw up to the score in time. */
  reason: z.string().optional(),
  effectId: z.string().optional(),
  tool: z.string().optional(),
  /** The recorders whose evidence up to the score had not arrived when it was answered (reason `evidence_arriving`). */
  awaiting: z.array(z.string()).optional(),
});
export type ScoreLiveRunAnswer = z.infer<typeof scoreLiveRunAnswerSchema>;

export const liveRunPathSchema = z.strictObject({
  id: z.uuid("id must be an evaluation id (a UUID)"),
  externalId: text("externalId", 200),
});

/** PUT …/live-runs/{externalId}/recorders/{recorderId}: the path. */
export const liveRunRecorderPathSchema = liveRunPathSchema.extend({
  recorderId: z
    .string("recorderId must be text")
    .regex(/^[A-Za-z0-9._-]{1,100}$/, "recorderId must be 1 to 100 letters, digits, dots, dashes or underscores"),
});

/**
 * A recorder's heartbeat (the MCP recorder sends one when it starts, after each batch it delivers and
 * every second): `flushedThrough`, the time up to which everything it observed has reached Boundary
 * Lab; `stopped` when it has finished. A score waits for the run's live recorders to have flushed
 * through its time (SCORE_WAITS_FOR_RECORDERS_MS at the most).
 */
export const recorderHeartbeatBodySchema = z.strictObject({
  kind: text("kind", 100).optional(),
  flushedThrough: time("flushedThrough").optional(),
  stopped: z.boolean("stopped must be true or false").optional(),
});
export type RecorderHeartbeatBody = z.infer<typeof recorderHeartbeatBodySchema>;

export const liveRunRecorderSchema = z.object({
  recorderId: z.string(),
  kind: z.string(),
  startedAt: z.iso.datetime(),
  lastSeenAt: z.iso.datetime(),
  flushedThrough: z.iso.datetime().nullable(),
  stoppedAt: z.iso.datetime().nullable(),
});
export type LiveRunRecorder = z.infer<typeof liveRunRecorderSchema>;

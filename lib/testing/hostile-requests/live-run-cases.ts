// Hostile requests to a live run's routes: its recorders' heartbeats, its events, its score.
import { expect } from "vitest";
import { MAX_EVENTS_PER_REQUEST } from "../../evaluations/live/live-run-schemas";
import {
  T,
  EXPIRING_RUN,
  runPath,
  heartbeat,
  postEvents,
  touch,
  liveRunOf,
  evaluationRunOf,
  sleep,
  apiError,
  eventRefused,
  type HostileCase,
} from "./requests";

/** PUT …/live-runs/{run}/recorders/{recorderId}: a recorder's heartbeat. */
export const heartbeatCases: HostileCase[] = [
  {
    name: "recorder heartbeat: registered",
    request: heartbeat({ kind: "mcp stdio", flushedThrough: T(1) }),
    answer: { status: 200, body: { recorderId: "recorder-1", kind: "mcp stdio", flushedThrough: T(1), stoppedAt: null } },
    writes: true,
  },
  {
    name: "recorder heartbeat: a recorderId with a space and !",
    request: heartbeat({}, "bad%20id!"),
    answer: apiError(400, "invalid_request", "recorderId"),
  },
  {
    name: "recorder heartbeat: a recorderId of 101 characters",
    request: heartbeat({}, "r".repeat(101)),
    answer: apiError(400, "invalid_request", "recorderId"),
  },
  {
    name: "recorder heartbeat: a recorderId with NUL",
    request: heartbeat({}, "r%00"),
    answer: apiError(400, "invalid_request", "recorderId"),
  },
  {
    name: "recorder heartbeat: flushedThrough not a time",
    request: heartbeat({ flushedThrough: "yesterday" }),
    answer: apiError(400, "invalid_request", "flushedThrough"),
  },
  {
    name: "recorder heartbeat: flushedThrough in year 10000",
    request: heartbeat({ flushedThrough: "+010000-01-01T00:00:00.000Z" }),
    answer: apiError(400, "invalid_request", "flushedThrough"),
  },
  {
    name: "recorder heartbeat: flushedThrough in year 0000",
    request: heartbeat({ flushedThrough: "0000-06-01T00:00:00Z" }),
    answer: apiError(400, "invalid_request", "flushedThrough"),
  },
  {
    name: "recorder heartbeat: flushedThrough a number",
    request: heartbeat({ flushedThrough: 1764842400000 }),
    answer: apiError(400, "invalid_request", "flushedThrough"),
  },
  {
    name: "recorder heartbeat: stopped as text",
    request: heartbeat({ stopped: "yes" }),
    answer: apiError(400, "invalid_request", "stopped"),
  },
  {
    name: "recorder heartbeat: an unknown field",
    request: heartbeat({ kind: "mcp", pid: 4 }),
    answer: apiError(400, "invalid_request", "pid"),
  },
  {
    name: "recorder heartbeat: a kind of 101 characters",
    request: heartbeat({ kind: "k".repeat(101) }),
    answer: apiError(400, "invalid_request", "kind"),
  },
  {
    name: "recorder heartbeat: a run never opened",
    request: heartbeat({}, "recorder-1", "never-opened"),
    answer: apiError(404, "not_found", "externalId"),
  },
  {
    name: "recorder heartbeat: a run name with NUL",
    request: heartbeat({}, "recorder-1", "run\u0000"),
    answer: apiError(400, "invalid_request", "externalId"),
  },
  {
    name: "recorder heartbeat: a run name of 201 characters",
    request: heartbeat({}, "recorder-1", "r".repeat(201)),
    answer: apiError(400, "invalid_request", "externalId"),
  },
  {
    name: "recorder heartbeat: stopped (so that no score waits for it)",
    request: heartbeat({ flushedThrough: T(2), stopped: true }),
    answer: { status: 200, body: { recorderId: "recorder-1", flushedThrough: T(2), stoppedAt: expect.any(String) } },
    writes: true,
  },
];

/** POST …/live-runs/{run}/events. */
export const eventCases: HostileCase[] = [
  {
    name: "events: a request and its status are stored",
    request: postEvents([
      { eventId: "req-1", type: "effect_requested", at: T(1), effectId: "pay-1", tool: "send_money", handle: "op-1" },
      { eventId: "ack-1", type: "effect_status", at: T(2), effectId: "pay-1", status: "pending" },
    ]),
    answer: { status: 200, body: { accepted: 2, errors: [], duplicates: 0, state: "open" } },
    writes: true,
  },
  {
    name: "events: an unknown field beside events",
    request: (t) => ({ method: "POST", path: `${runPath(t)}/events`, json: { events: [touch("x")], extra: 1 } }),
    answer: apiError(400, "invalid_request", "extra"),
  },
  { name: "events: events not an array", request: postEvents({ 0: touch("x") }), answer: apiError(400, "invalid_request", "events") },
  { name: "events: no events", request: postEvents([]), answer: apiError(400, "invalid_request", "events") },
  {
    name: `events: ${MAX_EVENTS_PER_REQUEST + 1} events`,
    request: postEvents(Array.from({ length: MAX_EVENTS_PER_REQUEST + 1 }, (_, n) => touch(`many-${n}`))),
    answer: apiError(400, "invalid_request", "events"),
  },
  {
    name: "events: an unknown field in an event",
    request: postEvents([touch("x", { colour: "red" })]),
    answer: eventRefused("invalid_event", "events.0.colour"),
  },
  {
    name: "events: an eventId of 201 characters",
    request: postEvents([touch("e".repeat(201))]),
    answer: eventRefused("invalid_event", "events.0.eventId"),
  },
  {
    name: "events: an eventId of 100,000 characters",
    request: postEvents([touch("e".repeat(100_000))]),
    answer: eventRefused("invalid_event", "events.0.eventId"),
  },
  {
    name: "events: an eventId with NUL",
    request: postEvents([touch("e\u0000")]),
    answer: eventRefused("invalid_event", "events.0.eventId"),
  },
  {
    name: "events: a surface with NUL",
    request: postEvents([touch("nul-surface", { surface: "acct:\u0000" })]),
    answer: eventRefused("invalid_event", "events.0.surface"),
  },
  {
    name: "events: a key with NUL",
    request: postEvents([touch("nul-key", { "a\u0000": 1 })]),
    answer: eventRefused("invalid_event", "events.0"),
  },
  {
    name: "events: a lone surrogate",
    request: (t) => ({
      method: "POST",
      path: `${runPath(t)}/events`,
      json: '{"events":[{"eventId":"\\ud800","type":"touch","at":"2026-12-06T10:00:01Z","surface":"s","op":"read"}]}',
    }),
    answer: eventRefused("invalid_event", "events.0.eventId"),
  },
  {
    name: "events: a time in year 10000",
    request: postEvents([touch("late", { at: "+010000-01-01T00:00:00.000Z" })]),
    answer: eventRefused("invalid_event", "events.0.at"),
  },
  {
    name: "events: an effectId of 10,000 characters",
    request: postEvents([{ eventId: "long-effect", type: "effect_requested", at: T(1), effectId: "x".repeat(10_000), tool: "send_money" }]),
    answer: eventRefused("invalid_event", "events.0.effectId"),
  },
  {
    name: "events: a status of an effect never requested (the live-run routes refuse it)",
    request: postEvents([{ eventId: "orphan", type: "effect_status", at: T(3), effectId: "never", status: "completed" }]),
    answer: eventRefused("unknown_effect", "events.0.effectId"),
  },
  {
    name: "events: a second request of one effect",
    request: postEvents([{ eventId: "req-again", type: "effect_requested", at: T(1), effectId: "pay-1", tool: "send_money" }]),
    answer: eventRefused("duplicate_effect", "events.0.effectId"),
  },
  {
    name: "events: a status leaving a terminal state",
    request: postEvents([
      { eventId: "done", type: "effect_status", at: T(3), effectId: "pay-1", status: "completed", evidence: "ledger" },
      { eventId: "undone", type: "effect_status", at: T(4), effectId: "pay-1", status: "pending" },
    ]),
    answer: { status: 200, body: { accepted: 1, errors: [{ index: 1, code: "leaves_terminal", field: "events.1.status" }] } },
    writes: true,
  },
  {
    name: "events: one id twice with the same content is stored once",
    request: postEvents([touch("twice"), touch("twice")]),
    answer: { status: 200, body: { accepted: 2, duplicates: 1, errors: [] } },
    writes: true,
    after: async (t) => expect(await t.db.liveRunEvent.count({ where: { eventId: "twice" } })).toBe(1),
  },
  {
    name: "events: one id twice with other content keeps the first",
    request: postEvents([touch("conflicting"), touch("conflicting", { op: "write" })]),
    answer: { status: 200, body: { accepted: 1, errors: [{ index: 1, code: "event_id_conflict", field: "events.1.eventId" }] } },
    writes: true,
    after: async (t) =>
      expect(await t.db.liveRunEvent.findMany({ where: { eventId: "conflicting" }, select: { body: true } })).toEqual([
        { body: touch("conflicting") },
      ]),
  },
  {
    name: "events: a run never opened",
    request: postEvents([touch("x")], "never-opened"),
    answer: apiError(404, "not_found", "externalId"),
  },
  {
    name: "events: 17 MiB of events (past the 16 MiB limit), its whole body written first",
    request: (t) => ({ ...postEvents([touch("big", { surface: "s".repeat(17 * 1024 * 1024) })])(t), client: "whole-body-first" }),
    answer: apiError(413, "body_too_large"),
  },
  {
    name: "events: 17 MiB of events, chunked, its whole body written first",
    request: (t) => ({ ...postEvents([touch("big", { surface: "s".repeat(17 * 1024 * 1024) })])(t), client: "whole-body-first-chunked" }),
    answer: apiError(413, "body_too_large"),
  },
];

/** POST …/live-runs/{run}/score. */
export const scoreCases: HostileCase[] = [
  {
    name: "score: a label that is neither",
    request: (t) => ({ method: "POST", path: `${runPath(t)}/score`, json: { endpointLabel: "maybe" } }),
    answer: apiError(400, "invalid_request", "endpointLabel"),
  },
  {
    name: "score: a label beside unscoredReason",
    request: (t) => ({ method: "POST", path: `${runPath(t)}/score`, json: { endpointLabel: "success", unscoredReason: "crashed" } }),
    answer: apiError(400, "invalid_request", "endpointLabel"),
  },
  {
    name: "score: a time in year 10000",
    request: (t) => ({
      method: "POST",
      path: `${runPath(t)}/score`,
      json: { endpointLabel: "success", at: "+010000-01-01T00:00:00.000Z" },
    }),
    answer: apiError(400, "invalid_request", "at"),
  },
  {
    name: "score: scoredOn of 101 surfaces",
    request: (t) => ({
      method: "POST",
      path: `${runPath(t)}/score`,
      json: { endpointLabel: "success", scoredOn: Array.from({ length: 101 }, (_, n) => `s${n}`) },
    }),
    answer: apiError(400, "invalid_request", "scoredOn"),
  },
  {
    name: "score: a run never opened is opened and scored",
    request: (t) => ({ method: "POST", path: `${runPath(t, "scored-first")}/score`, json: { endpointLabel: "success", at: T(5) } }),
    answer: { status: 200, body: { finality: "final" } },
    writes: true,
    after: async (t) => {
      expect(await liveRunOf(t, t.evaluationId, "scored-first")).toEqual({ state: "scored" });
      expect(await evaluationRunOf(t, t.evaluationId, "scored-first")).toEqual({ finality: "final", unscoredReason: null });
    },
  },
  {
    name: "score: the open run, its transfer resolved before the score",
    request: (t) => ({ method: "POST", path: `${runPath(t)}/score`, json: { endpointLabel: "success", at: T(5) } }),
    answer: { status: 200, body: { finality: "final" } },
    writes: true,
  },
  {
    name: "score: a run scored already, with another label",
    request: (t) => ({ method: "POST", path: `${runPath(t)}/score`, json: { endpointLabel: "failure", at: T(5) } }),
    answer: apiError(409, "live_run_scored", "externalId"),
  },
  {
    name: "score: a run past its timeout is stored unscored, and the score refused",
    before: () => sleep(1_200),
    request: (t) => ({
      method: "POST",
      path: `/api/v1/evaluations/${t.expiringEvaluationId}/live-runs/${EXPIRING_RUN}/score`,
      json: { endpointLabel: "success" },
    }),
    answer: apiError(409, "live_run_expired", "externalId"),
    writes: true,
    after: async (t) => {
      expect(await liveRunOf(t, t.expiringEvaluationId, EXPIRING_RUN)).toEqual({ state: "expired" });
      expect(await evaluationRunOf(t, t.expiringEvaluationId, EXPIRING_RUN)).toMatchObject({
        finality: "unscored",
        unscoredReason: expect.stringContaining("not scored within 1 s"),
      });
    },
  },
];

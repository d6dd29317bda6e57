import { once } from "node:events";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { createEvaluation } from "@/lib/evaluations/create-evaluation";
import { encodeTraceRequest } from "@/lib/evaluations/otel/otlp-wire";
import { OTLP_REQUEST_LIMITS } from "@/lib/evaluations/otel/spans";
import { MAX_EVENTS_PER_REQUEST } from "@/lib/evaluations/live/live-run-schemas";
import { MAX_LABEL_MAP_ENTRIES } from "@/lib/evaluations/evaluation-requests";
import { onlyRowOf } from "@/lib/db/rows";
import type { TestDatabase } from "@/lib/testing/database";
import { routeTestDatabase } from "@/lib/testing/route-test-database";
import { serveRoutes, type ServedRoute } from "@/lib/testing/route-server";

// Hostile and malformed requests to the newest routes (evaluation scoring, live runs and their recorders,
// OTLP, effect policies, unknown paths and methods, bodies over their limit), one table of cases, each sent
// over real HTTP to the route handlers on a real PostgreSQL, served as the web server serves them (bodies
// drained after an early answer, JSON 405s). Each must be answered exactly as its row says, and a case that
// must write nothing is held to every counted table and column being as it was.
let database: TestDatabase;
let key: string;
let api: { origin: string; close(): Promise<void> };

/** What the cases address: made in beforeAll. */
interface Targets {
  evaluationId: string;
  /** An evaluation whose live runs expire after 1 s. */
  expiringEvaluationId: string;
}
let targets: Targets;
const OPEN_RUN = "hostile-open";
const RECORDED_RUN = "hostile-recorded";
const EXPIRING_RUN = "hostile-expiring";
const UNKNOWN_UUID = "00000000-0000-4000-8000-000000000000";
const T = (seconds: number) => new Date(Date.parse("2026-12-06T10:00:00Z") + seconds * 1_000).toISOString();

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type Method = (typeof METHODS)[number];
/** A route module's handlers, as Next serves them: the methods it exports. */
const methodsOf = (module: Partial<Record<Method, unknown>>): ServedRoute["methods"] =>
  Object.fromEntries(METHODS.filter((m) => typeof module[m] === "function").map((m) => [m, module[m]])) as ServedRoute["methods"];

beforeAll(async () => {
  ({ database, key } = await routeTestDatabase(inject("embeddedAdminUrl"), "editor", "hostile"));
  const [otlp, evaluation, effectPolicy, liveRuns, liveRun, events, score, recorder, unknownPath] = await Promise.all([
    import("./otel/v1/traces/route"),
    import("./v1/evaluations/[id]/route"),
    import("./v1/evaluations/[id]/effect-policy/route"),
    import("./v1/evaluations/[id]/live-runs/route"),
    import("./v1/evaluations/[id]/live-runs/[externalId]/route"),
    import("./v1/evaluations/[id]/live-runs/[externalId]/events/route"),
    import("./v1/evaluations/[id]/live-runs/[externalId]/score/route"),
    import("./v1/evaluations/[id]/live-runs/[externalId]/recorders/[recorderId]/route"),
    import("./[...path]/route"),
  ]);
  const run = String.raw`\/api\/v1\/evaluations\/(?<id>[^/]+)\/live-runs\/(?<externalId>[^/]+)`;
  api = await serveRoutes(
    [
      { path: /^\/api\/otel\/v1\/traces$/, methods: methodsOf(otlp) },
      { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)$/, methods: methodsOf(evaluation) },
      { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/effect-policy$/, methods: methodsOf(effectPolicy) },
      { path: /^\/api\/v1\/evaluations\/(?<id>[^/]+)\/live-runs$/, methods: methodsOf(liveRuns) },
      { path: new RegExp(`^${run}$`), methods: methodsOf(liveRun) },
      { path: new RegExp(`^${run}/events$`), methods: methodsOf(events) },
      { path: new RegExp(`^${run}/score$`), methods: methodsOf(score) },
      { path: new RegExp(`^${run}/recorders/(?<recorderId>[^/]+)$`), methods: methodsOf(recorder) },
      // Next prefers every more specific route to the catch-all.
      { path: /^\/api\/.+$/, methods: methodsOf(unknownPath) },
    ],
    { asTheWebServer: true },
  );
  const evaluationId = await createEvaluation(
    database.db,
    { name: "hostile", effectPolicy: { tools: { send_money: "async_handle" } } },
    null,
  );
  const expiringEvaluationId = await createEvaluation(database.db, { name: "hostile expiring", liveRunTimeoutSeconds: 1 }, null);
  targets = { evaluationId, expiringEvaluationId };
  for (const [id, externalId] of [
    [evaluationId, OPEN_RUN],
    [evaluationId, RECORDED_RUN],
    [expiringEvaluationId, EXPIRING_RUN],
  ] as const) {
    const opened = await send({
      method: "POST",
      path: `/api/v1/evaluations/${id}/live-runs`,
      json: { externalId, taskId: "pay", startedAt: T(0) },
    });
    expect(opened.status).toBe(201);
  }
}, 120_000);
afterAll(async () => {
  await api?.close();
  await database?.drop();
});

interface Sent {
  method: Method;
  path: string;
  /** Sent as JSON text; a string is sent as it is. */
  json?: unknown;
  /** A body sent as it is, with its type. */
  bytes?: { contentType: string; body: Uint8Array<ArrayBuffer> };
  /**
   * How the client sends: `fetch`, or as a client that writes its whole body before it reads the answer (Python's urllib),
   * with a content-length or chunked.
   */
  client?: "fetch" | "whole-body-first" | "whole-body-first-chunked";
}

interface Answer {
  status: number;
  contentType: string | null;
  body: unknown;
}

async function send(request: Sent): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  let body: Uint8Array<ArrayBuffer> | undefined;
  if (request.bytes) {
    headers["content-type"] = request.bytes.contentType;
    body = request.bytes.body;
  } else if (request.json !== undefined) {
    headers["content-type"] = "application/json";
    body = Buffer.from(typeof request.json === "string" ? request.json : JSON.stringify(request.json));
  }
  if (request.client === "whole-body-first" || request.client === "whole-body-first-chunked")
    return sendWholeBodyFirst(request.method, request.path, headers, Buffer.from(body ?? []), request.client.endsWith("chunked"));
  const answer = await fetch(`${api.origin}${request.path}`, { method: request.method, headers, body });
  const text = await answer.text();
  return { status: answer.status, contentType: answer.headers.get("content-type"), body: parsed(text) };
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** Writes the request's head and whole body on a raw connection, and only then reads the answer: every write must succeed. */
async function sendWholeBodyFirst(
  method: Method,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  chunked: boolean,
): Promise<Answer> {
  const { hostname, port } = new URL(api.origin);
  const socket = connect(Number(port), hostname);
  await once(socket, "connect");
  const received: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => received.push(chunk));
  const failures: Error[] = [];
  socket.on("error", (error) => failures.push(error));
  const closed = once(socket, "close");
  const head = [
    `${method} ${path} HTTP/1.1`,
    `host: ${hostname}:${port}`,
    "connection: close",
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  head.push(chunked ? "transfer-encoding: chunked" : `content-length: ${body.length}`);
  const write = async (data: Buffer | string) => {
    if (!socket.write(data)) await Promise.race([once(socket, "drain"), closed]);
  };
  await write(`${head.join("\r\n")}\r\n\r\n`);
  for (let at = 0; at < body.length && failures.length === 0; at += 64 * 1024) {
    const piece = body.subarray(at, at + 64 * 1024);
    await write(chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n")]) : piece);
  }
  if (chunked) await write("0\r\n\r\n");
  await closed;
  expect(failures.map((f) => f.message)).toEqual([]);
  const raw = Buffer.concat(received).toString("utf8");
  const split = raw.indexOf("\r\n\r\n");
  const [statusLine, ...headerLines] = raw.slice(0, split).split("\r\n");
  const answerHeaders = new Map(
    headerLines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
  );
  let text = raw.slice(split + 4);
  if (answerHeaders.get("transfer-encoding") === "chunked") {
    let dechunked = "";
    for (let rest = text; ;) {
      const size = parseInt(rest.slice(0, rest.indexOf("\r\n")), 16);
      if (!(size > 0)) break;
      const start = rest.indexOf("\r\n") + 2;
      dechunked += rest.slice(start, start + size);
      rest = rest.slice(start + size + 2);
    }
    text = dechunked;
  }
  return { status: Number(statusLine!.split(" ")[1]), contentType: answerHeaders.get("content-type") ?? null, body: parsed(text) };
}

/** Every table and column a refused request could write, as it stands. */
async function storedState() {
  return onlyRowOf(
    z.record(z.string(), z.unknown()),
    await database.db.$queryRaw`
      SELECT (SELECT count(*) FROM evaluations)::int AS evaluations,
             (SELECT string_agg(id::text || ':' || coalesce(label_map::text, '-') || ':' || coalesce(score_threshold::text, '-'), ',' ORDER BY id)
                FROM evaluations) AS scoring,
             (SELECT count(*) FROM evaluation_effect_policies)::int AS policies,
             (SELECT string_agg(external_id || ':' || state, ',' ORDER BY id) FROM live_runs) AS live_runs,
             (SELECT count(*) FROM live_run_events)::int AS live_run_events,
             (SELECT count(*) FROM live_run_spans)::int AS live_run_spans,
             (SELECT string_agg(recorder_id || ':' || coalesce(flushed_through::text, '-') || ':' || coalesce(stopped_at::text, '-'), ',' ORDER BY recorder_id)
                FROM live_run_recorders) AS recorders,
             (SELECT count(*) FROM otel_traces)::int AS otel_traces,
             (SELECT count(*) FROM evaluation_runs)::int AS evaluation_runs,
             (SELECT count(*) FROM evaluation_tool_suggestions)::int AS tool_suggestions`,
  );
}

const apiError = (status: number, code: string, field?: string) => ({
  status,
  body: { error: { code, ...(field !== undefined && { field }), message: expect.any(String) } },
});
const otlpError = (status: number, rpcCode: number, names: string) => ({
  status,
  body: { code: rpcCode, message: expect.stringContaining(names) },
});
/** A live-run events answer (200) refusing one event, naming its field. */
const eventRefused = (code: string, field: string, index = 0) => ({
  status: 200,
  body: { accepted: 0, errors: [{ index, code, field: expect.stringContaining(field) }] },
});

interface HostileCase {
  name: string;
  request: (t: Targets) => Sent;
  /** The answer: status, and what its body must hold (toMatchObject). */
  answer: { status: number; body?: unknown; contentType?: string };
  /** Whether it may write: unless it does, every counted table and column is as it was before it. */
  writes?: true;
  /** Run before it is sent. */
  before?: () => Promise<void>;
  /** What must hold after it (for the cases that write). */
  after?: (t: Targets) => Promise<void>;
}

const evaluationPath = (t: Targets) => `/api/v1/evaluations/${t.evaluationId}`;
const runPath = (t: Targets, run = OPEN_RUN) => `${evaluationPath(t)}/live-runs/${encodeURIComponent(run)}`;
const patch =
  (json: unknown) =>
  (t: Targets): Sent => ({ method: "PATCH", path: evaluationPath(t), json });
const heartbeat =
  (json: unknown, recorderId = "recorder-1", run = RECORDED_RUN) =>
  (t: Targets): Sent => ({
    method: "PUT",
    path: `${runPath(t, run)}/recorders/${recorderId}`,
    json,
  });
const postEvents =
  (events: unknown, run = OPEN_RUN) =>
  (t: Targets): Sent => ({ method: "POST", path: `${runPath(t, run)}/events`, json: { events } });
const touch = (eventId: string, extra: Record<string, unknown> = {}) => ({
  eventId,
  type: "touch",
  at: T(1),
  surface: "acct:alice",
  op: "read",
  ...extra,
});
const policy =
  (tools: unknown) =>
  (t: Targets): Sent => ({ method: "PUT", path: `${evaluationPath(t)}/effect-policy`, json: { tools } });

const str = (k: string, v: string) => ({ key: k, value: { stringValue: v } });
const OTLP_TRACE = "8c8efff798038103d269b633813fc601";
const toolSpan = (n: number, extra: Record<string, unknown> = {}) => ({
  traceId: OTLP_TRACE,
  spanId: (n + 1).toString(16).padStart(16, "0"),
  name: "execute_tool send_money",
  startTimeUnixNano: "1764842400000000000",
  endTimeUnixNano: "1764842400100000000",
  attributes: [str("gen_ai.operation.name", "execute_tool"), str("gen_ai.tool.name", "send_money")],
  ...extra,
});
const otlpJson = (t: Targets, spans: unknown[], resource: unknown[] = []): Sent => ({
  method: "POST",
  path: "/api/otel/v1/traces",
  json: {
    resourceSpans: [{ resource: { attributes: [str("boundary_lab.evaluation", t.evaluationId), ...resource] }, scopeSpans: [{ spans }] }],
  },
});
const labelMapAttribute = (value: string) => [str("boundary_lab.label_map", value)];
const partialSuccess = (names: string) => ({
  status: 200,
  body: { partialSuccess: { rejectedSpans: "1", errorMessage: expect.stringContaining(names) } },
});

const liveRunOf = (evaluationId: string, externalId: string) =>
  database.db.liveRun.findUnique({ where: { evaluationId_externalId: { evaluationId, externalId } }, select: { state: true } });
const evaluationRunOf = (evaluationId: string, externalId: string) =>
  database.db.evaluationRun.findFirst({ where: { evaluationId, externalId }, select: { finality: true, unscoredReason: true } });
const scoringOf = (t: Targets) =>
  database.db.evaluation.findUniqueOrThrow({ where: { id: t.evaluationId }, select: { labelMap: true, scoreThreshold: true } });
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const CASES: HostileCase[] = [
  // PATCH /api/v1/evaluations/{id}: how scores without a label are read.
  {
    name: "PATCH evaluation: a label map and a threshold are stored",
    request: patch({ labelMap: { Relevant: "success", irrelevant: "failure" }, scoreThreshold: 0.5 }),
    answer: { status: 200, body: { labelMap: { relevant: "success", irrelevant: "failure" }, scoreThreshold: 0.5 } },
    writes: true,
    after: async (t) =>
      expect(await scoringOf(t)).toEqual({ labelMap: { relevant: "success", irrelevant: "failure" }, scoreThreshold: 0.5 }),
  },
  {
    name: "PATCH evaluation: scoreThreshold as text",
    request: patch({ scoreThreshold: "0.5" }),
    answer: apiError(400, "invalid_request", "scoreThreshold"),
  },
  {
    name: "PATCH evaluation: scoreThreshold 1e400 (not finite)",
    request: patch('{"scoreThreshold": 1e400}'),
    answer: apiError(400, "invalid_request", "scoreThreshold"),
  },
  {
    name: "PATCH evaluation: scoreThreshold true",
    request: patch({ scoreThreshold: true }),
    answer: apiError(400, "invalid_request", "scoreThreshold"),
  },
  {
    name: "PATCH evaluation: labelMap an array",
    request: patch({ labelMap: ["relevant"] }),
    answer: apiError(400, "invalid_request", "labelMap"),
  },
  {
    name: "PATCH evaluation: labelMap a string",
    request: patch({ labelMap: '{"relevant":"success"}' }),
    answer: apiError(400, "invalid_request", "labelMap"),
  },
  {
    name: "PATCH evaluation: a label read as neither",
    request: patch({ labelMap: { relevant: "maybe" } }),
    answer: apiError(400, "invalid_request", "labelMap.relevant"),
  },
  {
    name: "PATCH evaluation: a label read as a number",
    request: patch({ labelMap: { relevant: 1 } }),
    answer: apiError(400, "invalid_request", "labelMap.relevant"),
  },
  {
    name: "PATCH evaluation: a label with NUL",
    request: patch({ labelMap: { "rel\u0000evant": "success" } }),
    answer: apiError(400, "invalid_request"),
  },
  {
    name: "PATCH evaluation: a label longer than 200 characters",
    request: patch({ labelMap: { ["x".repeat(201)]: "success" } }),
    answer: apiError(400, "invalid_request"),
  },
  {
    name: `PATCH evaluation: ${MAX_LABEL_MAP_ENTRIES + 1} labels`,
    request: patch({
      labelMap: Object.fromEntries(Array.from({ length: MAX_LABEL_MAP_ENTRIES + 1 }, (_, n) => [`label-${n}`, "success"])),
    }),
    answer: apiError(400, "invalid_request", "labelMap"),
  },
  {
    name: "PATCH evaluation: a 300 KiB label map (past the body limit), its whole body written first",
    request: (t) => ({
      ...patch({ labelMap: Object.fromEntries(Array.from({ length: 10_000 }, (_, n) => [`label-${n}-${"x".repeat(20)}`, "success"])) })(t),
      client: "whole-body-first",
    }),
    answer: apiError(413, "body_too_large"),
  },
  {
    name: "PATCH evaluation: an unknown field",
    request: patch({ labelMap: null, colour: "red" }),
    answer: apiError(400, "invalid_request", "colour"),
  },
  {
    name: "PATCH evaluation: __proto__",
    request: patch('{"__proto__": {"scoreThreshold": 0.1}}'),
    answer: apiError(400, "invalid_request"),
  },
  { name: "PATCH evaluation: neither field", request: patch({}), answer: apiError(400, "invalid_request", "labelMap") },
  { name: "PATCH evaluation: not JSON", request: patch('{"labelMap": '), answer: apiError(400, "malformed_json") },
  {
    name: "PATCH evaluation: JSON labelled text/plain",
    request: (t) => ({
      method: "PATCH",
      path: evaluationPath(t),
      bytes: { contentType: "text/plain", body: Buffer.from('{"scoreThreshold":1}') },
    }),
    answer: apiError(415, "unsupported_media_type"),
  },
  {
    name: "PATCH evaluation: an id that is not a UUID",
    request: () => ({ method: "PATCH", path: "/api/v1/evaluations/not-a-uuid", json: { scoreThreshold: 1 } }),
    answer: apiError(400, "invalid_request", "id"),
  },
  {
    name: "PATCH evaluation: an evaluation that does not exist",
    request: () => ({ method: "PATCH", path: `/api/v1/evaluations/${UNKNOWN_UUID}`, json: { scoreThreshold: 1 } }),
    answer: apiError(404, "not_found"),
  },
  {
    name: "PATCH evaluation: null clears the threshold and keeps the label map",
    request: patch({ scoreThreshold: null }),
    answer: { status: 200, body: { scoreThreshold: null, labelMap: { relevant: "success" } } },
    writes: true,
    after: async (t) =>
      expect(await scoringOf(t)).toEqual({ labelMap: { relevant: "success", irrelevant: "failure" }, scoreThreshold: null }),
  },
  {
    name: "PATCH evaluation: null clears the label map",
    request: patch({ labelMap: null }),
    answer: { status: 200, body: { labelMap: null } },
    writes: true,
    after: async (t) => expect(await scoringOf(t)).toEqual({ labelMap: null, scoreThreshold: null }),
  },

  // PUT …/live-runs/{run}/recorders/{recorderId}: a recorder's heartbeat.
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

  // POST …/live-runs/{run}/events.
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
    after: async () => expect(await database.db.liveRunEvent.count({ where: { eventId: "twice" } })).toBe(1),
  },
  {
    name: "events: one id twice with other content keeps the first",
    request: postEvents([touch("conflicting"), touch("conflicting", { op: "write" })]),
    answer: { status: 200, body: { accepted: 1, errors: [{ index: 1, code: "event_id_conflict", field: "events.1.eventId" }] } },
    writes: true,
    after: async () =>
      expect(await database.db.liveRunEvent.findMany({ where: { eventId: "conflicting" }, select: { body: true } })).toEqual([
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

  // POST …/live-runs/{run}/score.
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
      expect(await liveRunOf(t.evaluationId, "scored-first")).toEqual({ state: "scored" });
      expect(await evaluationRunOf(t.evaluationId, "scored-first")).toEqual({ finality: "final", unscoredReason: null });
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
      expect(await liveRunOf(t.expiringEvaluationId, EXPIRING_RUN)).toEqual({ state: "expired" });
      expect(await evaluationRunOf(t.expiringEvaluationId, EXPIRING_RUN)).toMatchObject({
        finality: "unscored",
        unscoredReason: expect.stringContaining("not scored within 1 s"),
      });
    },
  },

  // POST /api/otel/v1/traces.
  {
    name: "OTLP: a span starting past year 9999",
    request: (t) => otlpJson(t, [toolSpan(0, { startTimeUnixNano: "10000000000000000000000" })]),
    answer: otlpError(400, 3, "startTimeUnixNano"),
  },
  {
    name: "OTLP: an evaluation result at 10^25 ns",
    request: (t) =>
      otlpJson(t, [
        toolSpan(0, {
          events: [
            {
              name: "gen_ai.evaluation.result",
              timeUnixNano: "10000000000000000000000000",
              attributes: [str("gen_ai.evaluation.score.label", "success")],
            },
          ],
        }),
      ]),
    answer: otlpError(400, 3, "events[0].timeUnixNano"),
  },
  {
    name: `OTLP: ${OTLP_REQUEST_LIMITS.spans + 1} spans in protobuf`,
    request: (t) => ({
      method: "POST",
      path: "/api/otel/v1/traces",
      bytes: {
        contentType: "application/x-protobuf",
        body: encodeTraceRequest({
          resourceSpans: [
            {
              resource: { attributes: [str("boundary_lab.evaluation", t.evaluationId)] },
              scopeSpans: [{ spans: Array.from({ length: OTLP_REQUEST_LIMITS.spans + 1 }, (_, n) => toolSpan(n)) }],
            },
          ],
        }),
      },
    }),
    answer: { status: 413, contentType: "application/x-protobuf" },
  },
  {
    name: "OTLP: a label map that is not JSON",
    request: (t) => otlpJson(t, [toolSpan(0)], labelMapAttribute("relevant=success")),
    answer: partialSuccess("boundary_lab.label_map"),
  },
  {
    name: "OTLP: a label map that is an array",
    request: (t) => otlpJson(t, [toolSpan(0)], labelMapAttribute('["success"]')),
    answer: partialSuccess("boundary_lab.label_map"),
  },
  {
    name: "OTLP: a label map reading a label as neither",
    request: (t) => otlpJson(t, [toolSpan(0)], labelMapAttribute('{"relevant":"maybe"}')),
    answer: partialSuccess("boundary_lab.label_map"),
  },
  {
    name: "OTLP: a label map of 101 labels",
    request: (t) =>
      otlpJson(
        t,
        [toolSpan(0)],
        labelMapAttribute(JSON.stringify(Object.fromEntries(Array.from({ length: 101 }, (_, n) => [`l${n}`, "success"])))),
      ),
    answer: partialSuccess("boundary_lab.label_map"),
  },
  {
    name: "OTLP: a label map as a number attribute",
    request: (t) => otlpJson(t, [toolSpan(0)], [{ key: "boundary_lab.label_map", value: { intValue: "7" } }]),
    answer: partialSuccess("boundary_lab.label_map"),
  },
  {
    name: "OTLP: a span id with NUL",
    request: (t) => otlpJson(t, [toolSpan(0, { spanId: "\u0000".repeat(16) })]),
    answer: otlpError(400, 3, "spanId"),
  },
  {
    name: "OTLP: a good label map and span are stored",
    request: (t) => otlpJson(t, [toolSpan(0)], labelMapAttribute('{"relevant":"success"}')),
    answer: { status: 200, body: {} },
    writes: true,
    after: async (t) => expect(await liveRunOf(t.evaluationId, OTLP_TRACE)).toEqual({ state: "open" }),
  },
  {
    name: "OTLP: 9 MiB of spans (past the 8 MiB limit), its whole body written first",
    request: (t) => ({ ...otlpJson(t, [toolSpan(1, { name: "n".repeat(9 * 1024 * 1024) })]), client: "whole-body-first" }),
    answer: otlpError(413, 8, "bytes"),
  },
  {
    name: "OTLP: a body labelled text/plain",
    request: () => ({ method: "POST", path: "/api/otel/v1/traces", bytes: { contentType: "text/plain", body: Buffer.from("{}") } }),
    answer: otlpError(415, 3, "application/x-protobuf or application/json"),
  },

  // PUT …/effect-policy: object entries with templates.
  {
    name: "effect policy: a template whose brace does not close",
    request: policy({ read_file: { class: "read_only", reads: "fs:{" } }),
    answer: apiError(400, "invalid_request", "tools.read_file.reads"),
  },
  {
    name: "effect policy: a template with a blank name",
    request: policy({ read_file: { class: "read_only", reads: "fs:{}" } }),
    answer: apiError(400, "invalid_request", "tools.read_file.reads"),
  },
  {
    name: "effect policy: a template that is a number",
    request: policy({ read_file: { class: "read_only", reads: 5 } }),
    answer: apiError(400, "invalid_request", "tools.read_file.reads"),
  },
  {
    name: "effect policy: a template with NUL",
    request: policy({ write_file: { class: "sync_confirmed", writes: "fs:{path}\u0000" } }),
    answer: apiError(400, "invalid_request"),
  },
  {
    name: "effect policy: an unknown class in an object entry",
    request: policy({ read_file: { class: "teleport", reads: "fs:{path}" } }),
    answer: apiError(400, "invalid_request", "tools.read_file.class"),
  },
  {
    name: "effect policy: an unknown field in an object entry",
    request: policy({ read_file: { class: "read_only", colour: "red" } }),
    answer: apiError(400, "invalid_request", "tools.read_file.colour"),
  },
  {
    name: "effect policy: an object entry without a class",
    request: policy({ read_file: { reads: "fs:{path}" } }),
    answer: apiError(400, "invalid_request", "tools.read_file.class"),
  },
  {
    name: "effect policy: an entry that is null",
    request: policy({ read_file: null }),
    answer: apiError(400, "invalid_request", "tools.read_file"),
  },
  {
    name: "effect policy: object entries with templates are stored",
    request: policy({
      send_money: "async_handle",
      read_file: { class: "read_only", reads: "fs:{path}" },
      write_file: { class: "sync_confirmed", writes: "fs:{path}" },
    }),
    answer: { status: 200, body: { version: 2 } },
    writes: true,
  },

  // Paths no route serves and methods a route lacks: the API's JSON.
  {
    name: "GET an /api/ path no route serves",
    request: () => ({ method: "GET", path: "/api/v1/no/such/thing" }),
    answer: { ...apiError(404, "not_found"), contentType: "application/json" },
  },
  {
    name: "POST an /api/ path no route serves",
    request: () => ({ method: "POST", path: "/api/v2/evaluations", json: {} }),
    answer: { ...apiError(404, "not_found"), contentType: "application/json" },
  },
  {
    name: "DELETE a run's score",
    request: (t) => ({ method: "DELETE", path: `${runPath(t)}/score` }),
    answer: { ...apiError(405, "method_not_allowed"), contentType: "application/json" },
  },
  {
    name: "GET a run's events",
    request: (t) => ({ method: "GET", path: `${runPath(t)}/events` }),
    answer: { ...apiError(405, "method_not_allowed"), contentType: "application/json" },
  },
  {
    name: "PATCH a recorder",
    request: (t) => ({ method: "PATCH", path: `${runPath(t, RECORDED_RUN)}/recorders/recorder-1`, json: {} }),
    answer: { ...apiError(405, "method_not_allowed"), contentType: "application/json" },
  },
  {
    name: "PUT an evaluation",
    request: (t) => ({ method: "PUT", path: evaluationPath(t), json: { scoreThreshold: 1 } }),
    answer: { ...apiError(405, "method_not_allowed"), contentType: "application/json" },
  },
  {
    name: "GET the OTLP receiver",
    request: () => ({ method: "GET", path: "/api/otel/v1/traces" }),
    answer: { ...apiError(405, "method_not_allowed"), contentType: "application/json" },
  },
];

describe(`hostile requests to the newest routes (${CASES.length} cases)`, () => {
  it.each(CASES.map((c) => [c.name, c] as const))("%s", async (_, hostile) => {
    await hostile.before?.();
    const before = await storedState();
    const answer = await send(hostile.request(targets));
    expect({ status: answer.status, body: answer.body }).toMatchObject({
      status: hostile.answer.status,
      ...(hostile.answer.body !== undefined && { body: hostile.answer.body }),
    });
    if (hostile.answer.contentType !== undefined) expect(answer.contentType).toBe(hostile.answer.contentType);
    if (!hostile.writes) expect(await storedState()).toEqual(before);
    else expect(await storedState()).not.toEqual(before);
    await hostile.after?.(targets);
  });
});

import { once } from "node:events";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { createEvaluation } from "@/lib/evaluations/manage/create-evaluation";
import { onlyRowOf } from "@/lib/db/rows";
import type { TestDatabase } from "@/lib/testing/database";
import { effectPolicyCases, scoringCases } from "@/lib/testing/hostile-requests/evaluation-cases";
import { eventCases, heartbeatCases, scoreCases } from "@/lib/testing/hostile-requests/live-run-cases";
import { otlpCases } from "@/lib/testing/hostile-requests/otlp-cases";
import { pathCases } from "@/lib/testing/hostile-requests/path-cases";
import {
  EXPIRING_RUN,
  METHODS,
  OPEN_RUN,
  RECORDED_RUN,
  T,
  type Answer,
  type HostileCase,
  type Method,
  type Sent,
  type Targets,
} from "@/lib/testing/hostile-requests/requests";
import { routeTestDatabase } from "@/lib/testing/route-test-database";
import { serveRoutes, type ServedRoute } from "@/lib/testing/route-server";

// Hostile and malformed requests to the newest routes (evaluation scoring, live runs and their recorders,
// OTLP, effect policies, unknown paths and methods, bodies over their limit), one table of cases, each sent
// over real HTTP to the route handlers on a real PostgreSQL, served as the web server serves them (bodies
// drained after an early answer, JSON 405s). Each must be answered exactly as its row says, and a case that
// must write nothing is held to every counted table and column being as it was. The cases, by route, are
// lib/testing/hostile-requests/*-cases.ts's.
let database: TestDatabase;
let key: string;
let api: { origin: string; close(): Promise<void> };
let targets: Targets;

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
  targets = { db: database.db, evaluationId, expiringEvaluationId };
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

const CASES: HostileCase[] = [
  ...scoringCases,
  ...heartbeatCases,
  ...eventCases,
  ...scoreCases,
  ...otlpCases,
  ...effectPolicyCases,
  ...pathCases,
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

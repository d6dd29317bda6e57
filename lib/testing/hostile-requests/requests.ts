// The hostile-request table's vocabulary (app/api/hostile-requests.db.test.ts, the cases beside this
// file): what the cases address, how a request is written, the answers they expect, and what they read back.
import { expect } from "vitest";
import type { Db } from "../../db/prisma";

/** What the cases address: made in the test's beforeAll. */
export interface Targets {
  db: Db;
  evaluationId: string;
  /** An evaluation whose live runs expire after 1 s. */
  expiringEvaluationId: string;
}
export const OPEN_RUN = "hostile-open";
export const RECORDED_RUN = "hostile-recorded";
export const EXPIRING_RUN = "hostile-expiring";
export const UNKNOWN_UUID = "00000000-0000-4000-8000-000000000000";
export const T = (seconds: number) => new Date(Date.parse("2026-12-06T10:00:00Z") + seconds * 1_000).toISOString();

export const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type Method = (typeof METHODS)[number];

export interface Sent {
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

export interface Answer {
  status: number;
  contentType: string | null;
  body: unknown;
}

export const apiError = (status: number, code: string, field?: string) => ({
  status,
  body: { error: { code, ...(field !== undefined && { field }), message: expect.any(String) } },
});
export const otlpError = (status: number, rpcCode: number, names: string) => ({
  status,
  body: { code: rpcCode, message: expect.stringContaining(names) },
});
/** A live-run events answer (200) refusing one event, naming its field. */
export const eventRefused = (code: string, field: string, index = 0) => ({
  status: 200,
  body: { accepted: 0, errors: [{ index, code, field: expect.stringContaining(field) }] },
});

export interface HostileCase {
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

export const evaluationPath = (t: Targets) => `/api/v1/evaluations/${t.evaluationId}`;
export const runPath = (t: Targets, run = OPEN_RUN) => `${evaluationPath(t)}/live-runs/${encodeURIComponent(run)}`;
export const patch =
  (json: unknown) =>
  (t: Targets): Sent => ({ method: "PATCH", path: evaluationPath(t), json });
export const heartbeat =
  (json: unknown, recorderId = "recorder-1", run = RECORDED_RUN) =>
  (t: Targets): Sent => ({
    method: "PUT",
    path: `${runPath(t, run)}/recorders/${recorderId}`,
    json,
  });
export const postEvents =
  (events: unknown, run = OPEN_RUN) =>
  (t: Targets): Sent => ({ method: "POST", path: `${runPath(t, run)}/events`, json: { events } });
export const touch = (eventId: string, extra: Record<string, unknown> = {}) => ({
  eventId,
  type: "touch",
  at: T(1),
  surface: "acct:alice",
  op: "read",
  ...extra,
});
export const policy =
  (tools: unknown) =>
  (t: Targets): Sent => ({ method: "PUT", path: `${evaluationPath(t)}/effect-policy`, json: { tools } });

export const str = (k: string, v: string) => ({ key: k, value: { stringValue: v } });
export const OTLP_TRACE = "8c8efff798038103d269b633813fc601";
export const toolSpan = (n: number, extra: Record<string, unknown> = {}) => ({
  traceId: OTLP_TRACE,
  spanId: (n + 1).toString(16).padStart(16, "0"),
  name: "execute_tool send_money",
  startTimeUnixNano: "1764842400000000000",
  endTimeUnixNano: "1764842400100000000",
  attributes: [str("gen_ai.operation.name", "execute_tool"), str("gen_ai.tool.name", "send_money")],
  ...extra,
});
export const otlpJson = (t: Targets, spans: unknown[], resource: unknown[] = []): Sent => ({
  method: "POST",
  path: "/api/otel/v1/traces",
  json: {
    resourceSpans: [{ resource: { attributes: [str("boundary_lab.evaluation", t.evaluationId), ...resource] }, scopeSpans: [{ spans }] }],
  },
});
export const labelMapAttribute = (value: string) => [str("boundary_lab.label_map", value)];
export const partialSuccess = (names: string) => ({
  status: 200,
  body: { partialSuccess: { rejectedSpans: "1", errorMessage: expect.stringContaining(names) } },
});

export const liveRunOf = (t: Targets, evaluationId: string, externalId: string) =>
  t.db.liveRun.findUnique({ where: { evaluationId_externalId: { evaluationId, externalId } }, select: { state: true } });
export const evaluationRunOf = (t: Targets, evaluationId: string, externalId: string) =>
  t.db.evaluationRun.findFirst({ where: { evaluationId, externalId }, select: { finality: true, unscoredReason: true } });
export const scoringOf = (t: Targets) =>
  t.db.evaluation.findUniqueOrThrow({ where: { id: t.evaluationId }, select: { labelMap: true, scoreThreshold: true } });
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

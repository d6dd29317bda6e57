import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import {
  MAX_BODY_BYTES,
  MAX_DELAY_MS,
  MAX_WAIT_MS,
  entriesQuerySchema,
  initialiseRequestSchema,
  operationListQuerySchema,
  operationQuerySchema,
  resetRequestSchema,
  valueQuerySchema,
  writeRequestSchema,
} from "./delayed-write-schemas";
import { DomainError, invalid } from "../errors";
import { errorBody, INTERNAL_ERROR_BODY, statusOf } from "../http/errors";
import { parseInput as parse, parseJsonText } from "../http/input";
import { CapacityError, DelayedWriteStore } from "./delayed-write-store";
import { monotonicNowMs, PreciseScheduler } from "./precise-timer";

async function readJson(req: IncomingMessage): Promise<unknown> {
  const type = req.headers["content-type"] ?? "";
  if (!type.startsWith("application/json"))
    throw new DomainError("unsupported_media_type", "unsupported_media_type", "send the body as application/json");
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > MAX_BODY_BYTES) throw new DomainError("too_large", "body_too_large", `body exceeds ${MAX_BODY_BYTES} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new DomainError("too_large", "body_too_large", `body exceeds ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return parseJsonText(Buffer.concat(chunks).toString("utf8"));
}

/** A malformed percent-escape in the path is the caller's error (400), not the service's (500). */
function decodeHandle(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw invalid(`handle ${raw} is not valid percent-encoding`, "handle");
  }
}

function queryOf(url: URL): Record<string, string> {
  return Object.fromEntries(url.searchParams.entries());
}

function defaultStore(): DelayedWriteStore {
  const scheduler = new PreciseScheduler();
  return new DelayedWriteStore({ now: monotonicNowMs, runAt: (atMs, fn) => scheduler.runAt(atMs, fn) });
}

export interface DelayedWriteServer {
  server: Server;
  store: DelayedWriteStore;
  /** Readiness fails from here on; in-flight requests still finish. */
  beginShutdown(): void;
}

/**
 * The delayed-write service over HTTP/JSON. It makes no outbound connection: it only answers.
 * Every response carries `serviceTimeMs`, the service's monotonic clock, so that an evaluator can
 * order its own observations against the service's events.
 */
export function createDelayedWriteServer(store = defaultStore()): DelayedWriteServer {
  let shuttingDown = false;

  const send = (res: ServerResponse, status: number, body: Record<string, unknown>) => {
    const payload = JSON.stringify({ ...body, serviceTimeMs: monotonicNowMs() });
    res.setHeader("content-type", "application/json");
    res.setHeader("content-length", Buffer.byteLength(payload));
    res.setHeader("cache-control", "no-store");
    // Once shutting down, answers close their connection so that the process can exit promptly.
    if (shuttingDown) res.setHeader("connection", "close");
    res.writeHead(status);
    res.end(payload);
  };

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://service.local");
    const method = req.method ?? "GET";
    const parts = url.pathname.split("/").filter(Boolean);
    const allow = (...methods: string[]) => {
      if (methods.includes(method)) return;
      res.setHeader("allow", methods.join(", "));
      throw new DomainError(
        "method_not_allowed",
        "method_not_allowed",
        `${method} is not allowed on ${url.pathname}; use ${methods.join(" or ")}`,
      );
    };

    if (url.pathname === "/healthz") {
      allow("GET");
      return send(res, 200, { status: "ok" });
    }
    if (url.pathname === "/readyz") {
      allow("GET");
      return send(res, shuttingDown ? 503 : 200, { status: shuttingDown ? "shutting_down" : "ready" });
    }
    if (url.pathname === "/v1/clock") {
      allow("GET");
      return send(res, 200, { timeOrigin: performance.timeOrigin });
    }
    if (url.pathname === "/v1/writes") {
      allow("POST");
      const request = parse(writeRequestSchema, await readJson(req), "body");
      const op = store.requestWrite(request);
      // sync answers only once the write is terminal; async answers at once
      if (request.mode === "sync") await store.waitForTerminal(op.handle, MAX_DELAY_MS + MAX_WAIT_MS);
      store.markAcknowledged(op.handle);
      return send(res, op.status === "pending" ? 202 : 200, { operation: op });
    }
    if (url.pathname === "/v1/operations") {
      allow("GET");
      const query = parse(operationListQuerySchema, queryOf(url), "query");
      const operations =
        query.namespace !== undefined
          ? store.listOperations(query.namespace, query.status)
          : store.listOperationsByPrefix(query.prefix!, query.status);
      return send(res, 200, { operations });
    }
    if (parts[0] === "v1" && parts[1] === "operations" && parts[2]) {
      const handle = decodeHandle(parts[2]);
      if (!store.getOperation(handle)) throw new DomainError("not_found", "unknown_handle", `no operation has handle ${handle}`, "handle");
      if (parts.length === 3) {
        allow("GET");
        const { waitMs } = parse(operationQuerySchema, queryOf(url), "query");
        const { operation, timedOut } = await store.waitForTerminal(handle, waitMs ?? 0);
        return send(res, 200, { operation, waitTimedOut: waitMs !== undefined && timedOut });
      }
      if (parts.length === 4 && parts[3] === "cancel") {
        allow("POST");
        const result = store.cancel(handle);
        if (!result) throw new DomainError("not_found", "unknown_handle", `no operation has handle ${handle}`, "handle");
        return send(res, 200, { operation: result.operation, outcome: result.outcome });
      }
    }
    if (url.pathname === "/v1/values") {
      allow("GET", "PUT");
      if (method === "GET") {
        const query = parse(valueQuerySchema, queryOf(url), "query");
        const readAtMs = monotonicNowMs();
        return send(res, 200, { namespace: query.namespace, key: query.key, entry: store.read(query.namespace, query.key), readAtMs });
      }
      const body = parse(initialiseRequestSchema, await readJson(req), "body");
      const entry = store.initialise(body.namespace, body.key, body.value);
      return send(res, 200, { namespace: body.namespace, key: body.key, entry, readAtMs: entry.writtenAtMs });
    }
    if (url.pathname === "/v1/entries") {
      allow("GET");
      const { namespace } = parse(entriesQuerySchema, queryOf(url), "query");
      const readAtMs = monotonicNowMs();
      return send(res, 200, { namespace, entries: store.entries(namespace), readAtMs });
    }
    if (url.pathname === "/v1/namespaces/reset") {
      allow("POST");
      const body = parse(resetRequestSchema, await readJson(req), "body");
      const result = store.reset(body.namespace, body.values, body.operations);
      return send(res, 200, { namespace: body.namespace, ...result });
    }
    throw new DomainError("not_found", "not_found", `no route ${method} ${url.pathname}`);
  }

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (res.headersSent) return res.destroy();
      if (error instanceof DomainError) {
        return send(res, statusOf(error.kind), errorBody(error));
      }
      if (error instanceof CapacityError) return send(res, 503, { error: { code: "at_capacity", message: error.message } });
      console.error("delayed-write: unexpected error", error);
      send(res, 500, INTERNAL_ERROR_BODY);
    });
  });
  server.keepAliveTimeout = 30_000;
  return { server, store, beginShutdown: () => (shuttingDown = true) };
}

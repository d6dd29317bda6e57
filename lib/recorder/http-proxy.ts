// The MCP recorder in Streamable HTTP mode (docs/recording.md, `--listen PORT --upstream URL`): a reverse
// proxy in front of an MCP server's HTTP endpoint. Every request goes to the upstream's origin at the
// same path and query, with its headers and body as they came; every answer (JSON or an SSE stream)
// goes back byte for byte while a copy is read. Forwarding comes first and reading after, so the
// recorder never delays, alters or blocks the agent's traffic. JSON-RPC ids are per session, so each
// MCP session (Mcp-Session-Id) has its own observer; a session's tasks are polled in that session
// (tasks are bound to it), with the headers the agent last sent in it, until terminal or the session ends.
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import type { Readable } from "node:stream";
import zlib from "node:zlib";
import { createParser } from "eventsource-parser";
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { RecorderPresence } from "./presence";
import { McpObserver, type JsonRpcMessage } from "./observer";
import { ASK_TIMEOUT_MS, OWN_ID, Recording, now, type Channel, type RecordingOptions } from "./recording";

export interface HttpRecorderOptions extends RecordingOptions {
  /** The MCP server's endpoint, e.g. http://localhost:8080/mcp. */
  upstream: URL;
  listen: { port: number; host: string };
  /** Registers the recorder with its run before it takes a request, and says when it stops. */
  presence: Pick<RecorderPresence, "start" | "stop">;
  /** Keeps this recorder's effect ids apart from another recorder's of the same run. */
  idPrefix?: string;
}

export interface HttpRecorder {
  /** Where the agent reaches the upstream's endpoint through the recorder. */
  url: string;
  /** Stops taking requests, follows the tasks still open (within the bound), then drains the outbox (within drainMs). */
  stop(drainMs?: number): Promise<{ unsent: number }>;
}

/** Headers that belong to one connection, not to the message (RFC 9110 §7.6.1): never passed on. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "host"]);
const SESSION = "mcp-session-id";
/** What the recorder's own requests carry over from the agent's last request in the session. */
const CARRIED = ["authorization", "mcp-protocol-version"] as const;

const passable = (raw: string[]): string[] =>
  raw.flatMap((value, i) => (i % 2 === 0 && !HOP_BY_HOP.has(value.toLowerCase()) ? [value, raw[i + 1]!] : []));
const header = (message: IncomingMessage, name: string): string | undefined => {
  const value = message.headers[name];
  return typeof value === "string" && value.length > 0 ? value : undefined;
};

/** JSON-RPC messages in a body: one message or a batch; anything else holds none. */
function messagesOf(body: string): JsonRpcMessage[] {
  try {
    const parsed: unknown = JSON.parse(body);
    const items = Array.isArray(parsed) ? parsed : [parsed];
    return items.filter((item): item is JsonRpcMessage => item !== null && typeof item === "object" && !Array.isArray(item));
  } catch {
    return [];
  }
}

/** A copy of an answer's body as the server meant it (content-encoding undone), for reading only. */
function decoded(answer: IncomingMessage): Readable {
  const encoding = header(answer, "content-encoding")?.toLowerCase();
  if (encoding === "gzip" || encoding === "x-gzip") return answer.pipe(zlib.createGunzip());
  if (encoding === "deflate") return answer.pipe(zlib.createInflate());
  if (encoding === "br") return answer.pipe(zlib.createBrotliDecompress());
  return answer;
}

/** Calls `onMessage` for every JSON-RPC message in an answer: a JSON body once complete, an SSE stream event by event. */
function readAnswer(answer: IncomingMessage, onMessage: (message: JsonRpcMessage) => void, log: (line: string) => void): void {
  const type = header(answer, "content-type")?.toLowerCase() ?? "";
  if (!type.includes("text/event-stream") && !type.includes("json")) return;
  const body = decoded(answer);
  const text = new TextDecoder();
  body.on("error", (error) => log(`an answer could not be read (${error.message}); passed on as it came`));
  if (type.includes("text/event-stream")) {
    const parser = createParser({ onEvent: (event) => messagesOf(event.data).forEach(onMessage) });
    body.on("data", (chunk: Buffer) => parser.feed(text.decode(chunk, { stream: true })));
  } else {
    let json = "";
    body.on("data", (chunk: Buffer) => (json += text.decode(chunk, { stream: true })));
    body.on("end", () => messagesOf(json + text.decode()).forEach(onMessage));
  }
}

export async function startHttpRecorder(options: HttpRecorderOptions): Promise<HttpRecorder> {
  const { upstream, log } = options;
  const recording = new Recording(options);
  const request = upstream.protocol === "https:" ? https.request : http.request;
  /** One observer per session ("" for a server without sessions); ids kept apart by a prefix after the first. */
  const observers = new Map<string, McpObserver>();
  const carried = new Map<string, Record<string, string>>();
  const endedSessions = new Set<string>();
  let ownIds = 0;

  const observerOf = (session: string) => {
    let observer = observers.get(session);
    const prefix = `${options.idPrefix ?? ""}${observers.size === 0 ? "" : `s${observers.size + 1}-`}`;
    if (!observer) observers.set(session, (observer = new McpObserver(prefix)));
    return observer;
  };

  /** The recorder's own request in a session: POSTed to the upstream endpoint, its answer read from JSON or SSE, never passed to the agent. */
  const channelOf = (session: string): Channel => ({
    isOpen: () => !endedSessions.has(session),
    async ask(method, params) {
      const id = `${OWN_ID}${++ownIds}`;
      try {
        const answer = await fetch(upstream, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            ...carried.get(session),
            ...(session !== "" && { [SESSION]: session }),
          },
          body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
          signal: AbortSignal.timeout(ASK_TIMEOUT_MS),
        });
        if (answer.status === 404 && session !== "") endedSessions.add(session);
        if (!answer.ok || !answer.body) return undefined;
        if (!answer.headers.get("content-type")?.includes("text/event-stream"))
          return messagesOf(await answer.text()).find((m) => m.id === id)?.result;
        const events = answer.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
        try {
          for (let next = await events.read(); !next.done; next = await events.read()) {
            const mine = messagesOf(next.value.data).find((m) => m.id === id);
            if (mine) return mine.result;
          }
          return undefined;
        } finally {
          void events.cancel();
        }
      } catch {
        return undefined;
      }
    },
  });

  async function forward(agentRequest: IncomingMessage, agentResponse: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of agentRequest) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const target = new URL(agentRequest.url ?? "/", upstream.origin);
    const sessionAsked = header(agentRequest, SESSION) ?? "";
    const at = now();
    const toServer = request(target, {
      method: agentRequest.method,
      headers: [...passable(agentRequest.rawHeaders), "host", target.host],
    });
    /** The agent's messages, read once the session they belong to is known (an initialize answer names it). */
    const readRequest = (session: string) => {
      if (agentRequest.method !== "POST") return;
      const observer = observerOf(session);
      for (const message of messagesOf(body.toString("utf8")))
        recording.record(observer, observer.fromAgent(message, at), channelOf(session));
    };
    toServer.on("response", (answer) => {
      agentResponse.writeHead(answer.statusCode ?? 502, answer.statusMessage, passable(answer.rawHeaders));
      answer.pipe(agentResponse);
      const session = header(answer, SESSION) ?? sessionAsked;
      const headers = Object.fromEntries(
        CARRIED.flatMap((name) => (header(agentRequest, name) ? [[name, header(agentRequest, name)!]] : [])),
      );
      if (Object.keys(headers).length > 0) carried.set(session, headers);
      if (agentRequest.method === "DELETE" && (answer.statusCode ?? 500) < 300) endedSessions.add(session);
      if (answer.statusCode === 404 && sessionAsked !== "") endedSessions.add(sessionAsked);
      readRequest(session);
      const observer = observerOf(session);
      readAnswer(answer, (message) => recording.record(observer, observer.fromServer(message, now()), channelOf(session)), log);
    });
    toServer.on("error", (error) => {
      log(`to the server: ${error.message}`);
      readRequest(sessionAsked);
      if (agentResponse.headersSent) agentResponse.destroy(error);
      else
        agentResponse.writeHead(502, { "content-type": "application/json" }).end(
          JSON.stringify({
            jsonrpc: "2.0",
            id: null,
            error: { code: -32603, message: `the MCP server could not be reached: ${error.message}` },
          }),
        );
    });
    // An agent that goes away (an SSE stream it closes) ends the request to the server too.
    agentResponse.on("close", () => {
      if (!agentResponse.writableFinished) toServer.destroy();
    });
    toServer.end(body);
  }

  const server = http.createServer((agentRequest, agentResponse) => {
    forward(agentRequest, agentResponse).catch((error: Error) => {
      log(`a request could not be passed on: ${error.message}`);
      agentResponse.destroy();
    });
  });
  await options.presence.start();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.listen.port, options.listen.host, () => resolve());
  });
  options.outbox.start();
  const { port } = server.address() as AddressInfo;
  const host = options.listen.host.includes(":") ? `[${options.listen.host}]` : options.listen.host;

  return {
    url: `http://${host}:${port}${upstream.pathname}${upstream.search}`,
    async stop(drainMs = 30_000) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      if (recording.following > 0) log(`stopped listening; following ${recording.following} task(s) until terminal`);
      await recording.settle();
      const finished = await recording.finish(drainMs);
      await options.presence.stop();
      return finished;
    },
  };
}

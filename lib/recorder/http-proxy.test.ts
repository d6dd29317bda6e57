import { mkdtempSync } from "node:fs";
import http, { type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { startHttpRecorder } from "./http-proxy";
import type { RecordedEvent } from "./observer";
import { EventOutbox } from "./outbox";
import { RecorderPresence } from "./presence";
import type { RecorderHeartbeatBody } from "../evaluations/live/live-run-schemas";

// The Streamable HTTP recorder over real sockets, in front of a hand-written MCP endpoint that answers
// the way servers may: a session id on initialize, a gzip-encoded JSON batch, an SSE stream cut in the
// middle of an event, a task that works for two polls. What the agent gets must be the server's bytes;
// what the recorder records must follow from them; its own polls must travel in the agent's session.
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An MCP endpoint at /mcp that writes its answers by hand; `sent` keeps the exact bytes of each answer. */
async function handWrittenServer() {
  const seen: Seen[] = [];
  const sent: Buffer[] = [];
  let polls = 0;
  const server = http.createServer(async (request, response) => {
    let body = "";
    for await (const chunk of request) body += chunk;
    seen.push({ method: request.method!, url: request.url!, headers: request.headers, body });
    const messages = body
      ? (JSON.parse(body) as { id?: string | number; method: string }[] | { id?: string | number; method: string })
      : [];
    const first = Array.isArray(messages) ? messages[0]! : messages;
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      const bytes = Buffer.from(JSON.stringify(value));
      sent.push(bytes);
      response.writeHead(status, { "content-type": "application/json", "x-server": "hand-written", ...headers }).end(bytes);
    };
    if (first.method === "initialize")
      return json(
        200,
        { jsonrpc: "2.0", id: first.id, result: { serverInfo: { name: "handmade", version: "1" } } },
        { "mcp-session-id": "S1" },
      );
    if (first.method === "tools/list") {
      const bytes = gzipSync(
        JSON.stringify([
          { jsonrpc: "2.0", id: first.id, result: { tools: [{ name: "transfer", annotations: { destructiveHint: true } }] } },
        ]),
      );
      sent.push(bytes);
      return response.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" }).end(bytes);
    }
    if (first.method === "tools/call") {
      const event = `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: first.id, result: { task: { taskId: "t1", status: "working" } } })}\n\n`;
      sent.push(Buffer.from(event));
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(event.slice(0, 30));
      await new Promise((resolve) => setTimeout(resolve, 50));
      return response.end(event.slice(30));
    }
    if (first.method === "tasks/get")
      return json(200, {
        jsonrpc: "2.0",
        id: first.id,
        result: { taskId: "t1", status: ++polls < 2 ? "working" : "completed", pollInterval: 20 },
      });
    if (first.method === "tasks/result")
      return json(200, {
        jsonrpc: "2.0",
        id: first.id,
        result: { content: [{ type: "resource_link", uri: "bank://accounts/alice", name: "alice" }] },
      });
    json(404, { error: "unexpected" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`), seen, sent };
}

/** A POST as an agent sends it, answered with its raw bytes (no decoding), status and headers. */
function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; bytes: Buffer }>((resolve, reject) => {
    const request = http.request(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    });
    request.on("response", async (response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      resolve({ status: response.statusCode!, headers: response.headers, bytes: Buffer.concat(chunks) });
    });
    request.on("error", reject);
    request.end(JSON.stringify(body));
  });
}

/** The recorder in front of `upstream` on a free port, its events and suggestions kept here rather than sent. */
async function recorderBefore(upstream: URL) {
  const delivered: RecordedEvent[] = [];
  const suggested: string[] = [];
  const outbox = new EventOutbox(
    path.join(mkdtempSync(path.join(tmpdir(), "bl-http-recorder-")), "run.jsonl"),
    async (events) => void delivered.push(...events),
    () => {},
  );
  const heartbeats: RecorderHeartbeatBody[] = [];
  const recorder = await startHttpRecorder({
    upstream,
    listen: { port: 0, host: "127.0.0.1" },
    outbox,
    sink: { suggest: async (source, tools) => void suggested.push(...tools.map((t) => `${source} ${t.tool} ${t.suggestedClass}`)) },
    presence: new RecorderPresence({ heartbeat: async (body) => void heartbeats.push(body) }, outbox, () => {}),
    pollBoundMs: 10_000,
    pollIntervalMs: 20,
    log: () => {},
  });
  return { recorder, delivered, suggested, heartbeats };
}

describe("the Streamable HTTP recorder", () => {
  it("passes the server's answers on byte for byte and records from them; polls the task in the agent's session with its headers", async () => {
    const upstream = await handWrittenServer();
    const { recorder, delivered, suggested, heartbeats } = await recorderBefore(upstream.url);
    expect(recorder.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const session = { "mcp-session-id": "S1", authorization: "Bearer agent-token", "mcp-protocol-version": "2025-11-25" };

    const initialized = await post(recorder.url, { jsonrpc: "2.0", id: 0, method: "initialize", params: {} });
    expect(initialized.headers).toMatchObject({ "mcp-session-id": "S1", "x-server": "hand-written" });
    const listed = await post(recorder.url, [{ jsonrpc: "2.0", id: 1, method: "tools/list" }], session);
    expect(listed.headers["content-encoding"]).toBe("gzip");
    const called = await post(
      recorder.url,
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "transfer", arguments: { amount: 5 } } },
      session,
    );
    expect(called.headers["content-type"]).toBe("text/event-stream");
    expect([initialized.bytes, listed.bytes, called.bytes]).toEqual(upstream.sent.slice(0, 3));
    // The agent's requests reached the server as sent, to the same path.
    expect(upstream.seen.slice(0, 3).map((r) => [r.url, r.headers.authorization, JSON.parse(r.body)])).toEqual([
      ["/mcp", undefined, { jsonrpc: "2.0", id: 0, method: "initialize", params: {} }],
      ["/mcp", "Bearer agent-token", [{ jsonrpc: "2.0", id: 1, method: "tools/list" }]],
      [
        "/mcp",
        "Bearer agent-token",
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "transfer", arguments: { amount: 5 } } },
      ],
    ]);

    expect(await recorder.stop(10_000)).toEqual({ unsent: 0 });
    // Registered before it took a request; its last heartbeat says it stopped, everything it saw delivered.
    expect(heartbeats[0]).toEqual({ flushedThrough: expect.any(String) });
    expect(heartbeats.at(-1)).toEqual({ flushedThrough: expect.any(String), stopped: true });
    expect(Date.parse(heartbeats.at(-1)!.flushedThrough!)).toBeGreaterThanOrEqual(Date.parse(delivered.at(-1)!.at));
    const own = upstream.seen.slice(3);
    expect(own.map((r) => JSON.parse(r.body).method)).toEqual(["tasks/get", "tasks/get", "tasks/result"]);
    for (const request of own)
      expect(request.headers).toMatchObject({
        "mcp-session-id": "S1",
        authorization: "Bearer agent-token",
        "mcp-protocol-version": "2025-11-25",
      });
    expect(delivered.map((e) => [e.type, e.effectId ?? e.surface, e.status ?? e.op ?? e.tool, e.handle])).toEqual([
      ["effect_requested", "call-2", "transfer", undefined],
      ["effect_status", "call-2", "pending", "t1"],
      ["effect_status", "call-2", "completed", undefined],
      ["touch", "bank://accounts/alice", "write", undefined],
    ]);
    expect(suggested).toEqual(["mcp:handmade transfer sync_confirmed", "mcp:handmade transfer async_handle"]);
  });

  it("keeps apart the calls of two sessions that use the same JSON-RPC ids", async () => {
    const upstream = await handWrittenServer();
    const { recorder, delivered } = await recorderBefore(upstream.url);
    for (const session of ["S1", "S2"])
      await post(
        recorder.url,
        { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "transfer" } },
        { "mcp-session-id": session },
      );
    await recorder.stop(10_000);
    expect(delivered.filter((e) => e.type === "effect_requested").map((e) => e.effectId)).toEqual(["call-5", "s2-call-5"]);
  });
});

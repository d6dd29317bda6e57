import { execFile } from "node:child_process";
import { connect } from "node:net";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { serveRoutes } from "../testing/route-server";
import { apiRoute } from "./route/api-route";

// Bodies over a route's limit over real HTTP, through a real apiRoute served as Next serves it (the
// request's body streamed, behind the web server's edge): the 413 reaches a client that sends its
// whole body before it reads (as Python's urllib does, asking to close the connection), and a chunked
// body's 413 comes while it is still being sent.
const LIMIT = 64 * 1024;
let api: { origin: string; close(): Promise<void> };

beforeAll(async () => {
  const POST = apiRoute({ permission: "public", body: z.object({}).passthrough(), maxBodyBytes: LIMIT }, async () =>
    Response.json({ ok: true }),
  );
  api = await serveRoutes([{ path: /^\/api\/v1\/small$/, methods: { POST } }]);
});
afterAll(async () => {
  await api?.close();
});

interface Exchange {
  /** The whole answer as read, head and body. */
  answer: string;
  /** The client's writes that failed (the connection reset under them). */
  writeError: string | null;
  /** From the body passing the limit to the answer's first bytes. */
  answeredAfterLimitMs: number | null;
}

/** Sends a POST of `bodyBytes` with Connection: close, writing all of it before it waits for the answer; chunked when asked. */
function sendWholeBodyThenRead(bodyBytes: number, chunked: boolean): Promise<Exchange> {
  const { port } = new URL(api.origin);
  const socket = connect(Number(port), "127.0.0.1");
  const received: Buffer[] = [];
  let firstAnswerAt: number | null = null;
  let passedLimitAt: number | null = null;
  socket.on("data", (data) => {
    firstAnswerAt ??= performance.now();
    received.push(data);
  });
  const closed = new Promise<string | null>((resolve) => {
    socket.on("error", (error) => resolve((error as NodeJS.ErrnoException).code ?? error.message));
    socket.on("close", () => resolve(null));
  });
  const write = (data: string | Buffer) =>
    new Promise<void>((resolve, reject) => socket.write(data, (error) => (error ? reject(error) : resolve())));
  const sending = (async () => {
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    const length = chunked ? "transfer-encoding: chunked" : `content-length: ${bodyBytes}`;
    await write(
      `POST /api/v1/small HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nconnection: close\r\n${length}\r\n\r\n`,
    );
    const piece = Buffer.alloc(64 * 1024, 0x20);
    for (let sent = 0; sent < bodyBytes; sent += piece.length) {
      await write(chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n")]) : piece);
      if (sent + piece.length > LIMIT) passedLimitAt ??= performance.now();
    }
    if (chunked) await write("0\r\n\r\n");
    return null;
  })().catch((error: NodeJS.ErrnoException) => error.code ?? error.message);
  return Promise.all([sending, closed]).then(([writeError]) => ({
    answer: Buffer.concat(received).toString("latin1"),
    writeError,
    answeredAfterLimitMs: firstAnswerAt !== null && passedLimitAt !== null ? firstAnswerAt - passedLimitAt : null,
  }));
}

const statusLine = (answer: string) => answer.slice(0, answer.indexOf("\r\n"));

describe("a body over its route's limit", () => {
  it.each([10_000_000, 60_000_000])(
    "with content-length (%i bytes): the client sends it all, then reads the 413 naming the limit",
    async (bytes) => {
      const { answer, writeError } = await sendWholeBodyThenRead(bytes, false);
      expect(writeError).toBeNull();
      expect(statusLine(answer)).toBe("HTTP/1.1 413 Payload Too Large");
      expect(answer).toContain(`"code":"body_too_large","message":"body exceeds ${LIMIT} bytes (the limit)"`);
    },
  );

  it.each([10_000_000, 60_000_000])(
    "chunked (%i bytes): the 413 comes within a second of passing the limit, and the client that sends it all still reads it",
    async (bytes) => {
      const { answer, writeError, answeredAfterLimitMs } = await sendWholeBodyThenRead(bytes, true);
      expect(writeError).toBeNull();
      expect(statusLine(answer)).toBe("HTTP/1.1 413 Payload Too Large");
      expect(answer).toContain('"code":"body_too_large"');
      expect(answeredAfterLimitMs).not.toBeNull();
      expect(answeredAfterLimitMs!).toBeLessThan(1_000);
    },
  );

  it("Python's urllib, sending 10 MB with and without a length, reads the 413", async () => {
    const script = [
      "import sys, urllib.request, urllib.error",
      "body = b' ' * 10_000_000",
      "for data in (body, iter([body[i:i + 65536] for i in range(0, len(body), 65536)])):",
      "    headers = {'content-type': 'application/json'}",
      "    if not isinstance(data, bytes): headers['transfer-encoding'] = 'chunked'",
      "    try: urllib.request.urlopen(urllib.request.Request(sys.argv[1], data=data, headers=headers), timeout=30)",
      "    except urllib.error.HTTPError as e: print(e.code, e.read().decode())",
    ].join("\n");
    const { stdout } = await promisify(execFile)("python3", ["-c", script, `${api.origin}/api/v1/small`]);
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).toMatch(/^413 \{"error":\{"code":"body_too_large"/);
  });

  it("a body within the limit is read as ever, and fetch reads a 413 too", async () => {
    const ok = await fetch(`${api.origin}/api/v1/small`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect([ok.status, await ok.json()]).toEqual([200, { ok: true }]);
    const over = await fetch(`${api.origin}/api/v1/small`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ pad: "x".repeat(LIMIT) }),
    });
    expect(over.status).toBe(413);
    expect(await over.json()).toMatchObject({ error: { code: "body_too_large" } });
  });
});

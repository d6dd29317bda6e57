import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withBrotliStatic } from "./brotli-static";
import { SECURITY_HEADERS } from "./security-headers";

// Static chunks Brotli-compressed at the web server's edge, over real HTTP; whatever it does not
// serve reaches the next handler (here one that answers 418, standing in for Next).
let root: string;
let server: Server;
let port: number;
const SCRIPT = `globalThis.answer = ${JSON.stringify("forty-two ".repeat(500))};\n`;

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), "bl-brotli-static-"));
  mkdirSync(path.join(root, "static", "chunks"), { recursive: true });
  writeFileSync(path.join(root, "static", "chunks", "app.js"), SCRIPT);
  writeFileSync(path.join(root, "static", "chunks", "app.css"), "body { color: red }\n");
  writeFileSync(path.join(root, "secret.js"), "the build's own files stay out of reach\n");
  server = createServer(
    withBrotliStatic(
      (_request, response) => {
        response.writeHead(418, { "content-type": "text/plain" });
        response.end("next");
      },
      { staticDir: path.join(root, "static"), headers: SECURITY_HEADERS },
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

/** One request as sent (no client-side decoding): status, headers and the body's bytes. */
function get(pathname: string, headers: Record<string, string>, method = "GET") {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const sent = request({ host: "127.0.0.1", port, path: pathname, method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    sent.on("error", reject);
    sent.end();
  });
}

const BROWSER = { "accept-encoding": "gzip, deflate, br, zstd" };

describe("static chunks in Brotli", () => {
  it("sends a script Brotli-compressed to a client that accepts it, with its type, caching and the security headers", async () => {
    const answer = await get("/_next/static/chunks/app.js?v=1", BROWSER);
    expect(answer.status).toBe(200);
    expect(answer.headers["content-encoding"]).toBe("br");
    expect(answer.headers["content-type"]).toBe("application/javascript; charset=utf-8");
    expect(answer.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(answer.headers.vary).toBe("Accept-Encoding");
    expect(answer.headers["x-content-type-options"]).toBe("nosniff");
    expect(Number(answer.headers["content-length"])).toBe(answer.body.length);
    expect(answer.body.length).toBeLessThan(SCRIPT.length / 10);
    expect(brotliDecompressSync(answer.body).toString("utf8")).toBe(SCRIPT);

    const css = await get("/_next/static/chunks/app.css", BROWSER);
    expect(css.headers["content-type"]).toBe("text/css; charset=utf-8");
    expect(brotliDecompressSync(css.body).toString("utf8")).toBe("body { color: red }\n");
  });

  it("answers HEAD with the headers alone", async () => {
    const answer = await get("/_next/static/chunks/app.js", BROWSER, "HEAD");
    expect(answer.status).toBe(200);
    expect(answer.headers["content-encoding"]).toBe("br");
    expect(Number(answer.headers["content-length"])).toBeGreaterThan(0);
    expect(answer.body.length).toBe(0);
  });

  it("leaves to Next a client without Brotli, one that refuses it, another method, another path and a file that does not exist", async () => {
    for (const [pathname, headers, method] of [
      ["/_next/static/chunks/app.js", { "accept-encoding": "gzip, deflate" }, "GET"],
      ["/_next/static/chunks/app.js", { "accept-encoding": "br;q=0, gzip" }, "GET"],
      ["/_next/static/chunks/app.js", {}, "GET"],
      ["/_next/static/chunks/app.js", BROWSER, "POST"],
      ["/experiments", BROWSER, "GET"],
      ["/_next/static/chunks/app.map", BROWSER, "GET"],
      ["/_next/static/chunks/missing.js", BROWSER, "GET"],
    ] as const) {
      const answer = await get(pathname, headers, method);
      expect({ pathname, headers, method, status: answer.status, body: answer.body.toString("utf8") }).toEqual({
        pathname,
        headers,
        method,
        status: 418,
        body: "next",
      });
    }
  });

  it("never reads outside the static folder, however the path is escaped", async () => {
    for (const pathname of [
      "/_next/static/../secret.js",
      "/_next/static/%2e%2e/secret.js",
      "/_next/static/chunks/..%2f..%2fsecret.js",
      "/_next/static/%00.js",
    ]) {
      const answer = await get(pathname, BROWSER);
      expect({ pathname, status: answer.status }).toEqual({ pathname, status: 418 });
    }
  });

  it("compresses a file once: a later request is answered from what was kept", async () => {
    const first = await get("/_next/static/chunks/app.css", BROWSER);
    writeFileSync(path.join(root, "static", "chunks", "app.css"), "body { color: blue }\n");
    const second = await get("/_next/static/chunks/app.css", BROWSER);
    expect(second.body.equals(first.body)).toBe(true);
  });
});

// The web app's process (`npm start` runs it; so do the browser tests and the Docker image): Next's
// production server behind three edge rules, the client's address (lib/http/client-address.ts),
// well-formed paths (lib/http/well-formed-path.ts) and static chunks in Brotli (lib/http/brotli-static.ts).
// Needs `next build` first. SIGTERM or SIGINT stops taking connections and exits once the
// requests in flight are answered (at most 10 s).
import { createServer } from "node:http";
import path from "node:path";
import next from "next";
import { surviveConnectionLoss } from "../lib/db/connection-loss";
import { readServerEnv } from "../lib/env";
import { withBrotliStatic } from "../lib/http/brotli-static";
import { trustedProxies, withClientAddress } from "../lib/http/client-address";
import { SECURITY_HEADERS } from "../lib/http/security-headers";
import { withWellFormedPaths } from "../lib/http/well-formed-path";
import { stallLine, watchEventLoop } from "../lib/web/event-loop-watch";

const STOP_TIMEOUT_MS = 10_000;
const KEEP_ALIVE_TIMEOUT_MS = 65_000;
const env = readServerEnv();
// A database restart must cost the web app the requests on its lost connections, never its life.
surviveConnectionLoss((line) => console.error(`web: ${line}`));
const trust = trustedProxies(env.TRUSTED_PROXIES);
watchEventLoop(env.EVENT_LOOP_STALL_MS, (held) => console.warn(stallLine(held)));

const app = next({ dev: false, dir: process.cwd(), hostname: env.WEB_HOST, port: env.PORT });
await app.prepare();
const staticDir = path.join(process.cwd(), ".next", "static");
const server = createServer(
  withWellFormedPaths(withClientAddress(withBrotliStatic(app.getRequestHandler(), { staticDir, headers: SECURITY_HEADERS }), trust)),
);
// Node closes an idle keep-alive connection after 5 s, and a client that reuses it at that moment gets
// ECONNRESET (CI saw it: a Playwright request after a 5 s pause). Idle connections live longer than a
// reverse proxy's usual 60 s idle timeout instead, so the client or proxy is the side that closes them.
server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
server.listen(env.PORT, env.WEB_HOST, () => {
  console.log(
    `web: listening on ${env.WEB_HOST}:${env.PORT}${env.TRUSTED_PROXIES.length ? ` (trusting X-Forwarded-For from ${env.TRUSTED_PROXIES.join(", ")})` : ""}`,
  );
});

let stopping = false;
function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`web: ${signal}: finishing the requests in flight`);
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), STOP_TIMEOUT_MS).unref();
}
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGINT", () => stop("SIGINT"));

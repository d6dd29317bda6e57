// The web app's process (`npm start` runs it; so do the browser tests and the Docker image): Next's
// production server behind five edge rules, a request's body drained before its connection closes
// (lib/http/drained-requests.ts), well-formed paths (lib/http/well-formed-path.ts), the client's address
// (lib/http/client-address.ts), static chunks in Brotli (lib/http/brotli-static.ts) and the API's JSON 405
// (lib/http/method-refusals.ts).
// Needs `next build` first. With WEB_PROCESSES above 1 (the default: the machine's cores, at most 4) this
// process is the primary of that many such servers on one port (lib/supervisor/web-processes.ts). SIGTERM or
// SIGINT stops taking connections and exits once the requests in flight are answered (at most 10 s).
import cluster from "node:cluster";
import { createServer } from "node:http";
import path from "node:path";
import next from "next";
import { surviveConnectionLoss } from "../lib/db/connection-loss";
import { authSecret } from "../lib/auth/secret";
import { readServerEnv } from "../lib/env";
import { withBrotliStatic } from "../lib/http/brotli-static";
import { trustedProxies, withClientAddress } from "../lib/http/client-address";
import { withDrainedRequests } from "../lib/http/drained-requests";
import { withJsonMethodRefusals } from "../lib/http/method-refusals";
import { SECURITY_HEADERS } from "../lib/http/security-headers";
import { withWellFormedPaths } from "../lib/http/well-formed-path";
import { stallLine, watchEventLoop } from "../lib/web-server/event-loop-watch";
import { runWebProcesses } from "../lib/supervisor/web-processes";
import { stopWithSupervisor } from "../lib/supervisor/with-supervisor";

const STOP_TIMEOUT_MS = 10_000;
const KEEP_ALIVE_TIMEOUT_MS = 65_000;
const env = readServerEnv();
if (cluster.isPrimary && env.WEB_PROCESSES > 1) {
  // Made here, before the processes start, so that they all read the one secret.
  authSecret(env);
  runWebProcesses(env.WEB_PROCESSES, (line) => console.log(`web: ${line}`));
} else await serve();

async function serve() {
  // A database restart must cost the web app the requests on its lost connections, never its life.
  surviveConnectionLoss((line) => console.error(`web: ${line}`));
  const trust = trustedProxies(env.TRUSTED_PROXIES);
  watchEventLoop(env.EVENT_LOOP_STALL_MS, (held) => console.warn(stallLine(held)));

  const app = next({ dev: false, dir: process.cwd(), hostname: env.WEB_HOST, port: env.PORT });
  await app.prepare();
  const staticDir = path.join(process.cwd(), ".next", "static");
  // The drain outermost: every answer, the edge's own included, waits for its request's body before the connection closes.
  const server = createServer(
    withDrainedRequests(
      withWellFormedPaths(
        withClientAddress(
          withBrotliStatic(withJsonMethodRefusals(app.getRequestHandler()), { staticDir, headers: SECURITY_HEADERS }),
          trust,
        ),
      ),
    ),
  );
  // Node closes an idle keep-alive connection after 5 s, and a client that reuses it at that moment gets
  // ECONNRESET (CI saw it: a Playwright request after a 5 s pause). Idle connections live longer than a
  // reverse proxy's usual 60 s idle timeout instead, so the client or proxy is the side that closes them.
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
  server.listen(env.PORT, env.WEB_HOST, () => {
    // The one line for the instance: the first of several processes to listen says it.
    if (cluster.isWorker && cluster.worker!.id > 1) return;
    console.log(
      `web: listening on ${env.WEB_HOST}:${env.PORT}${env.TRUSTED_PROXIES.length ? ` (trusting X-Forwarded-For from ${env.TRUSTED_PROXIES.join(", ")})` : ""}`,
    );
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`web: ${signal}: finishing the requests in flight`);
    server.close(() => process.exit(0));
    server.closeIdleConnections();
    setTimeout(() => process.exit(0), STOP_TIMEOUT_MS).unref();
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  // A process of several is stopped by their primary (web-processes.ts), which watches the supervisor itself.
  if (cluster.isPrimary) stopWithSupervisor(() => stop("its supervisor is gone"));
}

// `npm run worker`: one replay worker against the product's database (DATABASE_URL, or the embedded
// PostgreSQL that `npm start` runs) and delayed-write service (DELAYED_WRITE_URL, or the one
// `npm start` recorded in .data/stack.json). WORKER_CONCURRENCY (default 16) units at a time;
// HEALTH_PORT serves /healthz (liveness) and /readyz (readiness, fails from SIGTERM on).
import { createServer } from "node:http";
import { surviveConnectionLoss } from "../lib/db/connection-loss";
import { openDatabase } from "../lib/db/database";
import { readWorkerEnv } from "../lib/env";
import { readStackStatus, stackStatusFile } from "../lib/supervisor/stack-status";
import { startReplayWorker } from "../lib/worker/job-worker";
import { stopWithSupervisor } from "../lib/supervisor/with-supervisor";

const log = (line: string) => console.log(`worker: ${line}`);
const env = readWorkerEnv();
// A database restart must cost the worker its connections, never its life (its pool recovers).
surviveConnectionLoss(log);

function serviceUrl(): string {
  if (env.DELAYED_WRITE_URL) return env.DELAYED_WRITE_URL;
  const stack = readStackStatus(stackStatusFile(env.BOUNDARY_LAB_DATA_DIR));
  if (stack) return stack.delayedWriteUrl;
  throw new Error("set DELAYED_WRITE_URL, or start the stack with `npm start` first");
}

const database = await openDatabase(log);
const worker = await startReplayWorker({ databaseUrl: database.url, serviceUrl: serviceUrl(), concurrency: env.WORKER_CONCURRENCY, log });

const health = createServer((req, res) => {
  const ready = worker.ready();
  const [status, body] =
    req.url === "/healthz"
      ? [200, { status: "ok" }]
      : req.url === "/readyz"
        ? [ready ? 200 : 503, { status: ready ? "ready" : "shutting_down" }]
        : [404, { error: "not found" }];
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
});
health.listen(env.HEALTH_PORT, "127.0.0.1", () => {
  const address = health.address();
  log(JSON.stringify({ event: "ready", poolId: worker.poolId, healthPort: address && typeof address === "object" ? address.port : null }));
});

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log(`${signal}: finishing the jobs in flight`);
  await worker.stop(env.SHUTDOWN_TIMEOUT_MS);
  health.close();
  await database.close();
  log("stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
stopWithSupervisor(() => void shutdown("its supervisor is gone"));

// `npm start`: PostgreSQL (embedded unless DATABASE_URL is set), migrations, then a supervisor of the
// delayed-write service (unless DELAYED_WRITE_URL is set), REPLAY_WORKERS replay workers and the web
// app on PORT. A child that dies is restarted with backoff (lib/supervisor/restart-policy.ts) while
// the others keep running; the children's states are kept in <data dir>/stack.json, which
// /api/health reports. Ctrl-C (or SIGTERM) stops the web app, then the workers (they finish their
// jobs in flight), then the service, then PostgreSQL.
import { mkdirSync, rmSync } from "node:fs";
import { openDatabase } from "../lib/db/database";
import { freePort } from "../lib/db/free-port";
import { createPrisma } from "../lib/db/prisma";
import { baseUrlOf, readServerEnv } from "../lib/env";
import { loadPaperReference } from "../lib/review/review-codes-store";
import { GROUND_TRUTH_VERSION, loadGroundTruthTraces } from "../lib/traces/library";
import { settlesWithin } from "../lib/supervisor/settles-within";
import { stackChildren, type ChildSpec } from "../lib/supervisor/stack-children";
import { stackStatusFile, writeStackStatus } from "../lib/supervisor/stack-status";
import { SupervisedChild } from "../lib/supervisor/supervised-child";

const SERVICE_START_TIMEOUT_MS = 30_000;

const log = (line: string) => console.log(`boundary-lab: ${line}`);
const env = readServerEnv();
mkdirSync(env.BOUNDARY_LAB_DATA_DIR, { recursive: true });

// PostgreSQL in a process group of its own: a Ctrl-C in the terminal must not stop it before the workers have stored their last units.
const database = await openDatabase(log, { ownProcess: true });
log(database.embedded ? `embedded PostgreSQL on ${new URL(database.url).host}` : "using the PostgreSQL server at DATABASE_URL");

// A restarted service comes back on the same port, so the URL every other child was given stays valid.
const servicePort = env.DELAYED_WRITE_URL ? null : await freePort();
const serviceUrl = env.DELAYED_WRITE_URL ?? `http://127.0.0.1:${servicePort}`;
const stackFile = stackStatusFile(env.BOUNDARY_LAB_DATA_DIR);
const specs = stackChildren({
  databaseUrl: database.url,
  serviceUrl,
  servicePort,
  replayWorkers: env.REPLAY_WORKERS,
  webPort: env.PORT,
  webHost: env.WEB_HOST,
  stackFile,
});

let stopping = false;
// `npm run worker` in another terminal finds the service here; /api/health finds the children's states.
const writeStatus = () => {
  if (!stopping)
    writeStackStatus(stackFile, {
      delayedWriteUrl: serviceUrl,
      pid: process.pid,
      updatedAt: new Date().toISOString(),
      children: children.map((c) => c.status()),
    });
};
const supervise = (spec: ChildSpec) => new SupervisedChild(spec, { log, onChange: writeStatus });
const service = specs.service && supervise(specs.service);
const workers = specs.workers.map(supervise);
const web = supervise(specs.web);
const children = [...(service ? [service] : []), ...workers, web];

async function stop(code: number, reason: string) {
  if (stopping) return;
  stopping = true;
  log(`stopping (${reason})`);
  rmSync(stackFile, { force: true });
  await web.stop();
  await Promise.all(workers.map((worker) => worker.stop()));
  await service?.stop();
  await database.close();
  log("stopped");
  process.exit(code);
}
process.on("SIGINT", () => void stop(0, "SIGINT"));
process.on("SIGTERM", () => void stop(0, "SIGTERM"));

writeStatus();
if (service) {
  service.start();
  if (!(await settlesWithin(service.running(), SERVICE_START_TIMEOUT_MS)))
    await stop(1, `the delayed-write service did not start within ${SERVICE_START_TIMEOUT_MS / 1000} s`);
}
log(`delayed-write service at ${serviceUrl}`);
for (const worker of workers) worker.start();
web.start();
log(`web app at ${baseUrlOf(env)}, ${env.REPLAY_WORKERS} replay worker(s)  (Ctrl-C stops everything)`);
{
  const db = createPrisma(database.url, 1);
  // The paper's protocol-review data, on first start only (idempotent).
  await loadPaperReference(db);
  // AgentDojo's ground-truth traces for the trace library, on first start only (idempotent).
  const traces = await loadGroundTruthTraces(db);
  if (traces > 0) log(`trace library: loaded ${traces} AgentDojo ${GROUND_TRUTH_VERSION} ground-truth traces`);
  if ((await db.user.count()) === 0)
    log(
      `no account yet: open ${baseUrlOf(env)}/setup to create the first admin, or run \`npm run user:create -- --email E --password P --role admin\``,
    );
  await db.$disconnect();
}

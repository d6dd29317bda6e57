// What the HTTP benchmarks share: a production build to serve, and the web server on a free
// loopback port against the benchmark's own database, with a secret of its own and an account maker.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { Pool } from "undici";
import { createAccount, createApiKey } from "../auth/accounts";
import { createAuth, type Auth } from "../auth/auth";
import { startEmbeddedPostgres } from "../db/embedded";
import { freePort } from "../db/free-port";
import { ensureMigrated } from "../db/migrate";
import { createPrisma, type Db } from "../db/prisma";
import { readServerEnv, serverEnvSchema } from "../env";
import { spawnWebServer } from "../web-server/spawn-web-server";
import { AGENTDOJO_RUNS } from "../testing/importer-fixtures";
import { stopChild, type orderedShutdown } from "../testing/ordered-shutdown";

const BUILD_ID = path.resolve(".next/BUILD_ID");
const READY_TIMEOUT_MS = 60_000;

/** Exits when there is no production build (a benchmark never builds); warns when sources changed after it. */
export function requireProductionBuild(name: string, log: (line: string) => void): void {
  if (!existsSync(BUILD_ID)) {
    console.error(`${name}: no production build (.next/BUILD_ID is missing): run \`npx next build\` first. This bench never builds.`);
    process.exit(1);
  }
  const built = statSync(BUILD_ID).mtimeMs;
  const newer: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (/\.(tsx?|css)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && statSync(file).mtimeMs > built) newer.push(file);
    }
  };
  for (const dir of ["app", "components", "lib"]) walk(dir);
  if (newer.length) {
    log(
      `WARNING: ${newer.length} source files changed after the production build (${newer.slice(0, 5).join(", ")}${newer.length > 5 ? ", …" : ""}): the web server serves the build, so it measures older code. Run \`npx next build\` to measure the checkout.`,
    );
  }
}

export interface BenchWeb {
  origin: string;
  authSecret: string;
  /** Better Auth on the benchmark's database with the web server's secret: accounts and keys made here work there. */
  auth: Auth;
  /** One keep-alive connection to the server. */
  pool: Pool;
  /** How many processes serve it (WEB_PROCESSES: its env's, else the product's default). */
  webProcesses: number;
  /** The web app's process (the primary of several): with its descendants, every process that serves it. */
  pid: number;
}

/**
 * Starts the web server (workers/web.ts) on a free loopback port against `databaseUrl`, registers
 * its stop, and resolves once it answers. `env` adds variables (the service's URL, raised limits).
 */
export async function startBenchWeb(options: {
  db: Db;
  databaseUrl: string;
  dataDir: string;
  log: (line: string) => void;
  stack: ReturnType<typeof orderedShutdown>;
  env?: Record<string, string>;
  /** The instance's secret: the web processes of one instance share it (a session made by one is good in another). */
  authSecret?: string;
  /** Told of each line the web server writes (it is also logged). */
  onLine?: (line: string) => void;
}): Promise<BenchWeb> {
  const { db, databaseUrl, dataDir, log, stack } = options;
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const authSecret = options.authSecret ?? randomBytes(32).toString("base64url");
  const auth = createAuth(
    db,
    readServerEnv({ BOUNDARY_LAB_URL: origin, BETTER_AUTH_SECRET: authSecret, BOUNDARY_LAB_DATA_DIR: dataDir }),
    databaseUrl,
  );
  const web = spawnWebServer({
    port,
    host: "127.0.0.1",
    env: {
      DATABASE_URL: databaseUrl,
      BOUNDARY_LAB_URL: origin,
      BETTER_AUTH_SECRET: authSecret,
      BOUNDARY_LAB_DATA_DIR: dataDir,
      DELAYED_WRITE_URL: "",
      ...options.env,
    },
    output: "pipe",
  });
  stack.onStop("web", () => stopChild(web));
  for (const stream of [web.stdout!, web.stderr!]) {
    createInterface({ input: stream }).on("line", (line) => {
      console.error(`[web] ${line}`);
      options.onLine?.(line);
    });
  }
  web.once("exit", (code, signal) => void stack.shutdown(stack.stopping() ? 0 : 1, `the web server exited (${signal ?? code})`));

  const webProcesses = serverEnvSchema.shape.WEB_PROCESSES.parse(options.env?.WEB_PROCESSES ?? process.env.WEB_PROCESSES);
  const pool = new Pool(origin, { connections: 1 });
  stack.onStop("HTTP client", () => pool.close());
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    try {
      const response = await pool.request({ path: "/api/health", method: "GET" });
      await response.body.dump();
      log(`web server up at ${origin} (${webProcesses} process${webProcesses > 1 ? "es" : ""})`);
      return { origin, authSecret, auth, pool, webProcesses, pid: web.pid! };
    } catch {
      if (Date.now() > deadline) throw new Error(`the web server did not answer within ${READY_TIMEOUT_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/**
 * What the API benchmarks stand on: a fresh embedded PostgreSQL in `dataDir`, migrated; the web server
 * on it (startBenchWeb); an editor's API key for `bench`. Every part is stopped with `stack`.
 */
export async function startBenchApi(
  bench: string,
  dataDir: string,
  log: (line: string) => void,
  stack: ReturnType<typeof orderedShutdown>,
) {
  const database = await startEmbeddedPostgres(dataDir, log);
  stack.onStop("PostgreSQL", () => database.stop());
  await ensureMigrated(database.url, log);
  const db = createPrisma(database.url);
  stack.onStop("database client", () => db.$disconnect());
  const web = await startBenchWeb({ db, databaseUrl: database.url, dataDir, log, stack });
  const name = bench.replace(/[^a-z]/g, "");
  const editor = await createAccount(web.auth, {
    email: `${name}@bench.test`,
    password: "a password for the benchmark",
    name,
    role: "editor",
  });
  const { key } = await createApiKey(web.auth, editor.id, bench);
  return { ...web, db, key };
}

/** Prints a benchmark's figures and writes them to `file` when one was named. */
export function reportFigures(figures: object, file: string | undefined, log: (line: string) => void): void {
  console.log(JSON.stringify(figures, null, 2));
  if (file) {
    writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
    log(`wrote ${file}`);
  }
}

/** Nearest-rank percentile of a list of numbers. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export interface HttpFigures {
  p50Ms: number;
  p95Ms: number;
  bytes: number;
}

const round = (value: number) => Math.round(value * 10) / 10;

/**
 * `requests` sequential GETs of `pathname` after `warmup` unmeasured ones, on the pool's keep-alive
 * connection, without Accept-Encoding (the body's own size); every answer must be 200. A latency runs
 * from sending to the body's last byte; bytes is the largest body seen; `check` reads the first.
 */
export async function measureGets(
  pool: Pool,
  pathname: string,
  options: { apiKey: string; warmup: number; requests: number; check: (body: Buffer) => void },
): Promise<HttpFigures> {
  const latencies: number[] = [];
  let bytes = 0;
  for (let i = 0; i < options.warmup + options.requests; i++) {
    const started = performance.now();
    const response = await pool.request({ path: pathname, method: "GET", headers: { authorization: `Bearer ${options.apiKey}` } });
    const body = Buffer.from(await response.body.arrayBuffer());
    const elapsed = performance.now() - started;
    if (response.statusCode !== 200)
      throw new Error(`GET ${pathname} answered ${response.statusCode}: ${body.toString("utf8").slice(0, 300)}`);
    if (i === 0) options.check(body);
    if (i < options.warmup) continue;
    latencies.push(elapsed);
    bytes = Math.max(bytes, body.length);
  }
  return { p50Ms: round(percentile(latencies, 50)), p95Ms: round(percentile(latencies, 95)), bytes };
}

/** A real AgentDojo log (the largest of the shared fixtures): its run page has a transcript to show. */
const BENCH_LOG = `${AGENTDOJO_RUNS}runs__meta-llama_Llama-3.3-70B-Instruct__slack__user_task_0__important_instructions__injection_task_1.json`;

/**
 * An evaluation named `name` made by uploading the bench's real AgentDojo log through the import API
 * (as an editor's upload would), and the external id of its run: the evaluation and run pages to measure.
 */
export async function importBenchEvaluation(
  db: Db,
  origin: string,
  apiKey: string,
  name: string,
): Promise<{ evaluationId: string; externalId: string }> {
  const imported = await fetch(`${origin}/api/v1/imports?${new URLSearchParams({ file: path.basename(BENCH_LOG), evaluation: name })}`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/octet-stream" },
    body: readFileSync(BENCH_LOG),
  });
  if (imported.status !== 200)
    throw new Error(`importing ${BENCH_LOG} answered ${imported.status}: ${(await imported.text()).slice(0, 500)}`);
  const { id } = await db.evaluation.findFirstOrThrow({ where: { name }, select: { id: true } });
  const run = await db.evaluationRun.findFirstOrThrow({ where: { evaluationId: id }, select: { externalId: true } });
  return { evaluationId: id, externalId: run.externalId };
}

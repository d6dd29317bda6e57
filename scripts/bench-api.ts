// `npm run bench:api -- --json FILE [--duration S] [--connections N] [--warmup S]`: API and page
// throughput under concurrent clients.
//
//  1. A fresh embedded PostgreSQL in a temp folder (never the user's data), migrated; the
//     delayed-write service; the paper's replay stored as an experiment (Table 2 checked); one replay
//     worker (idle, so that /api/health answers 200); an admin with an API key, a session (signed in
//     over HTTP) and a frozen share link of the experiment.
//  2. The web server (workers/web.ts, the production build: run `npx next build` first) on a free
//     loopback port, as `npm start` runs it (WEB_PROCESSES processes, the machine's cores by default), with the share-link lookup limit raised for the benchmark
//     (SHARE_LOOKUPS_PER_MINUTE).
//  3. Every route, one checked request each (it must answer 200), then loaded for WARMUP seconds
//     (default 5) before any is measured: the server is measured warm, as one that has served for a
//     while is (a fresh web process renders its first minute of pages up to 1.5 times slower, while
//     V8 compiles React's and the pages' code, and the first route measured used to absorb that;
//     `--warmup 0` measures it so). Then for each route a 2 s warm-up and autocannon with
//     CONNECTIONS connections (default 20) for DURATION seconds (default 10), one route at a time:
//     /api/health (no account), /api/v1/me (API key), the experiment's summary (API key), the
//     experiment page, one of its runs' page, an evaluation's page (imported from a real AgentDojo
//     log) and its run's page with the transcript (session cookie), the share link's page (anonymous).
//
//  4. Around each route's measured seconds, the CPU time of the web app's process tree and of
//     PostgreSQL's (from /proc) and of this process (the load generator), per request: where the two
//     cores went, in figures that do not move with the host's speed as requests/s do (this VM's
//     /api/health rate has ranged from 263 to 916 requests/s on the same code).
//
// Prints a table and writes FILE as {webProcesses, warmupSeconds, routes: [{path, auth, requestsPerSecond, p50Ms, p99Ms, non2xx,
// webCpuMsPerRequest, postgresCpuMsPerRequest, clientCpuMsPerRequest}]} (plus errors and timeouts per route).
// Targets are printed beside the figures, never asserted.
import autocannon from "autocannon";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createAccount, createApiKey } from "../lib/auth/accounts";
import { readPostmasterPid, startEmbeddedPostgres } from "../lib/db/embedded";
import { ensureMigrated } from "../lib/db/migrate";
import { createPrisma } from "../lib/db/prisma";
import { spawnDelayedWriteService } from "../lib/delayed-write/spawn";
import { replayConfigSchema } from "../lib/replay/rules/config";
import { table2Mismatches } from "../lib/replay/rules/expected-table2";
import { replayExperiment } from "../lib/replay/run/run-experiment";
import { createShareLink } from "../lib/share/share-links";
import { importBenchEvaluation, requireProductionBuild, startBenchWeb } from "../lib/bench/bench-web";
import { parseBenchFlags } from "../lib/bench/bench-flags";
import { orderedShutdown } from "../lib/testing/ordered-shutdown";
import { treeCpuMs } from "../lib/bench/process-cpu";
import { startReplayWorker } from "../lib/worker/job-worker";

const log = (line: string) => console.error(`bench:api: ${line}`);

const values = parseBenchFlags("bench:api", {
  duration: { default: 10, min: 1, max: 600, value: "SECONDS" },
  connections: { default: 20, min: 1, max: 1000 },
  warmup: { default: 5, min: 0, max: 600, value: "SECONDS" },
});
const DURATION_S = values.duration;
const CONNECTIONS = values.connections;
const ROUTE_WARMUP_S = 2;

requireProductionBuild("bench:api", log);
const dataDir = mkdtempSync(path.join(tmpdir(), "bl-bench-api-"));
const stack = orderedShutdown({ dataDir, stopTimeoutMs: 15_000, log, signalExitCode: 130, logReasonOnSuccess: false });

type Auth = "none" | "api_key" | "session";
interface RouteFigures {
  path: string;
  auth: Auth;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** CPU milliseconds per request of the web processes, PostgreSQL's and this process's (the load generator), over the measured seconds. */
  webCpuMsPerRequest: number;
  postgresCpuMsPerRequest: number;
  clientCpuMsPerRequest: number;
}

interface Route {
  path: string;
  label: string;
  auth: Auth;
  headers: Record<string, string>;
}

/** One request that must answer 200, then `seconds` of load (none for 0). */
async function warm(origin: string, route: Route, seconds: number): Promise<void> {
  const url = `${origin}${route.path}`;
  const checked = await fetch(url, { headers: route.headers });
  if (checked.status !== 200) throw new Error(`GET ${route.label} answered ${checked.status}: ${(await checked.text()).slice(0, 300)}`);
  await checked.arrayBuffer();
  if (seconds > 0) await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers: route.headers });
}

/** Where the CPU goes: the web app's process tree and PostgreSQL's, read from /proc around the measured seconds. */
interface CpuTrees {
  web: number;
  postgres: number;
}

async function measure(origin: string, route: Route, trees: CpuTrees): Promise<RouteFigures> {
  const url = `${origin}${route.path}`;
  await warm(origin, route, ROUTE_WARMUP_S);
  const before = { web: treeCpuMs(trees.web), postgres: treeCpuMs(trees.postgres), client: process.cpuUsage() };
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers: route.headers });
  const client = process.cpuUsage(before.client);
  const perRequest = (ms: number) => Math.round((ms / Math.max(result.requests.total, 1)) * 100) / 100;
  return {
    path: route.label,
    auth: route.auth,
    requestsPerSecond: Math.round(result.requests.average * 10) / 10,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    webCpuMsPerRequest: perRequest(treeCpuMs(trees.web) - before.web),
    postgresCpuMsPerRequest: perRequest(treeCpuMs(trees.postgres) - before.postgres),
    clientCpuMsPerRequest: perRequest((client.user + client.system) / 1000),
  };
}

async function main(): Promise<void> {
  const database = await startEmbeddedPostgres(dataDir, log);
  stack.onStop("PostgreSQL", () => database.stop());
  await ensureMigrated(database.url, log);
  const db = createPrisma(database.url);
  stack.onStop("database client", () => db.$disconnect());
  const service = await spawnDelayedWriteService();
  stack.onStop("delayed-write service", () => service.stop());

  log("replaying the paper's grid");
  const config = replayConfigSchema.parse({});
  const summary = await replayExperiment(db, config, service.url);
  const mismatches = table2Mismatches(summary, config);
  log(`experiment ${summary.experimentId}: Table 2 ${mismatches.length === 0 ? "exact" : `NOT exact (${mismatches.length} mismatches)`}`);
  const worker = await startReplayWorker({ databaseUrl: database.url, serviceUrl: service.url, concurrency: 4 });
  stack.onStop("replay worker", () => worker.stop(5_000));

  const { origin, auth, webProcesses, pid } = await startBenchWeb({
    db,
    databaseUrl: database.url,
    dataDir,
    log,
    stack,
    env: { DELAYED_WRITE_URL: service.url, SHARE_LOOKUPS_PER_MINUTE: "1000000000" },
  });
  const password = "a password for the benchmark";
  const admin = await createAccount(auth, { email: "bench@api.test", password, name: "bench", role: "admin" });
  const { key } = await createApiKey(auth, admin.id, "bench:api");
  const signedIn = await fetch(`${origin}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin },
    body: JSON.stringify({ email: admin.email, password }),
  });
  if (signedIn.status !== 200) throw new Error(`sign-in answered ${signedIn.status}: ${await signedIn.text()}`);
  const cookie = signedIn.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const principal = { userId: admin.id, email: admin.email, name: admin.name, role: "admin" as const, via: "session" as const };
  const { token } = await createShareLink(
    db,
    principal,
    { resourceType: "experiment", resourceId: summary.experimentId, mode: "frozen" },
    { defaultExpiryDays: 14 },
  );

  const evaluation = await importBenchEvaluation(db, origin, key, "bench:api evaluation");
  const run = await db.run.findFirstOrThrow({ where: { experimentId: summary.experimentId }, select: { id: true } });
  const bearer = { authorization: `Bearer ${key}` };
  const routes: Route[] = [
    { path: "/api/health", label: "/api/health", auth: "none", headers: {} },
    { path: "/api/v1/me", label: "/api/v1/me", auth: "api_key", headers: bearer },
    {
      path: `/api/v1/experiments/${summary.experimentId}/summary`,
      label: "/api/v1/experiments/<id>/summary",
      auth: "api_key",
      headers: bearer,
    },
    { path: `/experiments/${summary.experimentId}`, label: "/experiments/<id>", auth: "session", headers: { cookie } },
    { path: `/runs/${run.id}`, label: "/runs/<id>", auth: "session", headers: { cookie } },
    { path: `/evaluations/${evaluation.evaluationId}`, label: "/evaluations/<id>", auth: "session", headers: { cookie } },
    {
      path: `/evaluations/${evaluation.evaluationId}/runs/${encodeURIComponent(evaluation.externalId)}`,
      label: "/evaluations/<id>/runs/<externalId>",
      auth: "session",
      headers: { cookie },
    },
    { path: `/s/${token}`, label: "/s/<token>", auth: "none", headers: {} },
  ];
  if (values.warmup > 0) log(`warming every route for ${values.warmup} s before measuring any`);
  for (const route of routes) await warm(origin, route, values.warmup);
  const postmaster = readPostmasterPid(dataDir);
  if (!postmaster) throw new Error(`no postmaster.pid in ${dataDir}`);
  const trees = { web: pid, postgres: postmaster.pid };
  const figures: RouteFigures[] = [];
  for (const route of routes) {
    log(`${route.label}: ${CONNECTIONS} connections for ${DURATION_S} s`);
    figures.push(await measure(origin, route, trees));
  }

  const health = figures[0]!;
  const me = figures[1]!;
  const summaryFigures = figures[2]!;
  const header = ["GET", "auth", "requests/s", "p50", "p99", "non-2xx", "CPU ms/request: web", "PostgreSQL", "client"];
  const rows = figures.map((f) => [
    f.path,
    f.auth,
    f.requestsPerSecond.toFixed(1),
    `${f.p50Ms} ms`,
    `${f.p99Ms} ms`,
    String(f.non2xx + f.errors + f.timeouts),
    f.webCpuMsPerRequest.toFixed(2),
    f.postgresCpuMsPerRequest.toFixed(2),
    f.clientCpuMsPerRequest.toFixed(2),
  ]);
  const widths = header.map((_, i) => Math.max(header[i]!.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  const verdict = (ok: boolean) => (ok ? "met" : "NOT met");
  console.log(
    [
      `${webProcesses} web processes (WEB_PROCESSES), ${CONNECTIONS} connections, every route warmed for ${values.warmup} s first, then ${DURATION_S} s per route after ${ROUTE_WARMUP_S} s of warm-up; the paper's experiment (${summary.experimentId}), Table 2 ${mismatches.length === 0 ? "exact" : "NOT exact"}`,
      "",
      line(header),
      `|${widths.map((w, i) => (i < 2 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`,
      ...rows.map(line),
      "",
      `/api/v1/me with a key at ${((100 * me.requestsPerSecond) / health.requestsPerSecond).toFixed(0)}% of /api/health's rate (target ≥ 80%): ${verdict(me.requestsPerSecond >= 0.8 * health.requestsPerSecond)}`,
      `summary ${summaryFigures.requestsPerSecond.toFixed(1)} requests/s, p99 ${summaryFigures.p99Ms} ms (target ≥ 200/s, p99 ≤ 200 ms): ${verdict(summaryFigures.requestsPerSecond >= 200 && summaryFigures.p99Ms <= 200)}`,
      ...figures
        .filter((f) => !f.path.startsWith("/api/"))
        .map(
          (f) =>
            `${f.path} ${f.requestsPerSecond.toFixed(1)} requests/s, p99 ${f.p99Ms} ms (target ≥ 60/s, p99 ≤ 500 ms): ${verdict(f.requestsPerSecond >= 60 && f.p99Ms <= 500)}`,
        ),
      `non-2xx answers, errors and timeouts: ${figures.reduce((n, f) => n + f.non2xx + f.errors + f.timeouts, 0)} (target 0)`,
    ].join("\n"),
  );
  if (values.json) {
    writeFileSync(values.json, `${JSON.stringify({ webProcesses, warmupSeconds: values.warmup, routes: figures }, null, 2)}\n`);
    log(`wrote ${values.json}`);
  }
  await stack.shutdown(0, "done");
}

main().catch((error: unknown) => {
  log((error as Error).stack ?? String(error));
  void stack.shutdown(1, "failed");
});

// `npm run bench:dashboard -- --json FILE [--runs N] [--requests N]`: the experiment page and its
// summary API at a million runs.
//
//  1. A fresh embedded PostgreSQL in a temp folder (never the user's data, whatever DATABASE_URL
//     says), migrated.
//  2. One experiment of at least N runs (default 1,000,000: the paper-shaped grid of 100 schedules ×
//     139 repetitions × delays {0, 25, 100, 250} ms, 1,000,800 runs), generated inside PostgreSQL by
//     INSERT … SELECT … FROM generate_series (lib/testing/synthetic-runs.ts), with the open-effects
//     record of every scheduled write and the implementation checks. Timed per step. The rows go
//     through every constraint and trigger, as a worker's would. Then VACUUM (ANALYZE), which
//     autovacuum would run by itself soon after such a load: it sets the visibility map, which the
//     median's index-only walk needs (the summary is timed before it too).
//  3. experimentSummary in this process, before and after VACUUM, and the reference (the same summary
//     aggregated from the runs alone, lib/testing/summary-reference.ts): timings, and whether the
//     two are exactly equal.
//  4. An account (viewer) and an API key, then the web server (workers/web.ts) on a free loopback port against that
//     database (it needs a production build: run `npx next build` first, this bench never builds).
//  5. GET /experiments/<id> and GET /api/v1/experiments/<id>/summary with `Authorization: Bearer`,
//     REQUESTS times each (default 50) after 5 unmeasured warm-up requests, one at a time on one
//     keep-alive connection (undici), no Accept-Encoding (so the body is sent uncompressed). A
//     latency runs from sending the request to the last byte of the body; bytes is the body's size
//     (the largest seen). p50 and p95 are nearest-rank percentiles of the REQUESTS latencies.
//
//  6. First-load JavaScript of every page (scripts/first-load-js.ts): the gzip bytes of every script
//     the page's HTML loads, fetched as an admin (so that every page and control renders), /login
//     and a share link's page without an account. Budget: 200 KB per page. The pages include an
//     evaluation made by importing one real AgentDojo log, its run page (the transcript) and the
//     comparison page.
//  7. The same pages in Chromium (scripts/first-load-js-browser.ts), a fresh context each at
//     1440×900: the served bytes of every script fetched by the load event and by network idle, and
//     the page's HTML bytes. Budgets: 200 KB by load, 300 KB by idle, 150 KB of HTML.
//
// Prints tables and writes FILE as { runs, page: { p50Ms, p95Ms, bytes }, summaryApi: { … },
// firstLoadJsGzipBytes: { PAGE: bytes }, firstLoadJsByLoadBytes: { PAGE: bytes },
// firstLoadJsByIdleBytes: { PAGE: bytes }, pageBytes: { PAGE: bytes } }.
// Nothing is asserted. Every process started here is stopped at the end, on error and on SIGINT or
// SIGTERM, and the temp folder is removed.
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { createAccount, createApiKey } from "../lib/auth/accounts";
import { referenceExperimentSummary } from "../lib/testing/summary-reference";
import { gridForRuns, loadSyntheticExperiment } from "../lib/testing/synthetic-runs";
import { startEmbeddedPostgres } from "../lib/db/embedded";
import { ensureMigrated } from "../lib/db/migrate";
import { createPrisma, type Db } from "../lib/db/prisma";
import { experimentSummary } from "../lib/replay/store/summary";
import { replaySummarySchema } from "../lib/replay/rules/summary-schema";
import { importBenchEvaluation, measureGets, percentile, requireProductionBuild, startBenchWeb } from "../lib/bench/bench-web";
import { parseBenchFlags } from "../lib/bench/bench-flags";
import { orderedShutdown } from "../lib/testing/ordered-shutdown";
import { firstLoadJsGzipBytes } from "./first-load-js";
import { firstLoadInChromium, launchChromium } from "./first-load-js-browser";

const log = (line: string) => console.error(`bench:dashboard: ${line}`);

const values = parseBenchFlags("bench:dashboard", {
  runs: { default: 1_000_000, min: 1, max: 10_000_000 },
  requests: { default: 50, min: 1, max: 10_000 },
});
const RUNS = values.runs;
const REQUESTS = values.requests;
const WARMUP_REQUESTS = 5;
const STOP_TIMEOUT_MS = 15_000;

requireProductionBuild("bench:dashboard", log);

// ---------------------------------------------------------------------------------------------
// Everything started is stopped, last started first, on success, error or signal.

const dataDir = mkdtempSync(path.join(tmpdir(), "bl-bench-dashboard-"));
const stack = orderedShutdown({ dataDir, stopTimeoutMs: STOP_TIMEOUT_MS, log, signalExitCode: 130, logReasonOnSuccess: false });

// ---------------------------------------------------------------------------------------------

const ms = (value: number) => `${value.toFixed(1)} ms`;
const seconds = (value: number) => `${(value / 1000).toFixed(1)} s`;
const thousands = (value: number) => value.toLocaleString("en-US");

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

async function timeSummary(db: Db, experimentId: string, times: number, summary = experimentSummary) {
  const latencies: number[] = [];
  let last: Awaited<ReturnType<typeof experimentSummary>> | undefined;
  for (let i = 0; i < times; i++) {
    const { value, ms } = await timed(() => summary(db, experimentId));
    latencies.push(ms);
    last = value;
  }
  return { summary: last!, p50: percentile(latencies, 50), p95: percentile(latencies, 95) };
}

async function main(): Promise<void> {
  const database = await startEmbeddedPostgres(dataDir, log);
  stack.onStop("PostgreSQL", () => database.stop());
  await ensureMigrated(database.url, log);
  const db = createPrisma(database.url);
  stack.onStop("database client", () => db.$disconnect());

  const grid = gridForRuns(RUNS);
  log(
    `loading ${thousands(RUNS)} runs or more into one experiment (delays ${grid.delaysMs.join(", ")} ms, ${grid.schedules} schedules, ${grid.repetitions} repetitions)`,
  );
  const loaded = await loadSyntheticExperiment(db, grid);
  const { experimentId } = loaded;
  log(
    `loaded ${thousands(loaded.runs)} runs in ${seconds(loaded.timings.runsMs)}, ${thousands(loaded.openEffects)} open effects in ${seconds(loaded.timings.openEffectsMs)}`,
  );

  const beforeVacuum = await timeSummary(db, experimentId, 3);
  const vacuum = await timed(async () => {
    for (const table of ["runs", "open_effects", "run_summary_cells", "run_summary_groups", "run_summary_group_counts"])
      await db.$executeRawUnsafe(`VACUUM (ANALYZE) ${table}`);
  });
  const reference = await timeSummary(db, experimentId, 3, referenceExperimentSummary);
  const fast = await timeSummary(db, experimentId, 20);
  const exact = isDeepStrictEqual(fast.summary, reference.summary);
  if (!exact) log(`the summary differs from the reference:\n${JSON.stringify(fast.summary)}\n${JSON.stringify(reference.summary)}`);

  const { auth, pool, origin } = await startBenchWeb({ db, databaseUrl: database.url, dataDir, log, stack });
  const viewer = await createAccount(auth, {
    email: "bench@dashboard.test",
    password: randomBytes(18).toString("base64url"),
    name: "bench",
    role: "viewer",
  });
  const { key } = await createApiKey(auth, viewer.id, "bench:dashboard");
  const admin = await createAccount(auth, {
    email: "bench-admin@dashboard.test",
    password: randomBytes(18).toString("base64url"),
    name: "bench admin",
    role: "admin",
  });
  const { key: adminKey } = await createApiKey(auth, admin.id, "bench:dashboard first load");
  const run = await db.run.findFirstOrThrow({ where: { experimentId }, select: { id: true } });

  let apiMatches = false;
  const summaryApi = await measureGets(pool, `/api/v1/experiments/${experimentId}/summary`, {
    apiKey: key,
    warmup: WARMUP_REQUESTS,
    requests: REQUESTS,
    check: (body) => {
      apiMatches = isDeepStrictEqual(replaySummarySchema.parse(JSON.parse(body.toString("utf8"))), replaySummarySchema.parse(fast.summary));
    },
  });
  let pageShowsExperiment = false;
  const page = await measureGets(pool, `/experiments/${experimentId}`, {
    apiKey: key,
    warmup: WARMUP_REQUESTS,
    requests: REQUESTS,
    check: (body) => {
      pageShowsExperiment = body.toString("utf8").includes(experimentId);
    },
  });

  // First-load JavaScript: every page, as an admin sees it; sign-in and a share link's page without an account.
  const shareResponse = await pool.request({
    path: "/api/v1/share-links",
    method: "POST",
    headers: { authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
    body: JSON.stringify({ resourceType: "experiment", resourceId: experimentId }),
  });
  const shareBody = (await shareResponse.body.json()) as { url?: string };
  if (shareResponse.statusCode !== 201 || !shareBody.url) throw new Error(`creating a share link answered ${shareResponse.statusCode}`);
  // An evaluation from one real AgentDojo log (its run page shows the transcript), and a second to compare with.
  const evaluation = await importBenchEvaluation(db, origin, adminKey, "bench evaluation");
  const compared = await importBenchEvaluation(db, origin, adminKey, "bench evaluation (compared)");
  const firstLoadPages: [string, string, string | null][] = [
    ["/", "/", adminKey],
    ["/experiments/<id>", `/experiments/${experimentId}`, adminKey],
    ["/experiments/<id>/runs", `/experiments/${experimentId}/runs`, adminKey],
    ["/runs/<id>", `/runs/${run.id}`, adminKey],
    ["/effects", "/effects", adminKey],
    ["/evaluations", "/evaluations", adminKey],
    ["/evaluations/<id>", `/evaluations/${evaluation.evaluationId}`, adminKey],
    [
      "/evaluations/<id>/runs/<externalId>",
      `/evaluations/${evaluation.evaluationId}/runs/${encodeURIComponent(evaluation.externalId)}`,
      adminKey,
    ],
    ["/evaluations/compare", `/evaluations/compare?ids=${evaluation.evaluationId},${compared.evaluationId}`, adminKey],
    ["/evaluations/import", "/evaluations/import", adminKey],
    ["/protocols", "/protocols", adminKey],
    ["/experiments/new", "/experiments/new", adminKey],
    ["/account", "/account", adminKey],
    ["/admin", "/admin", adminKey],
    ["/login", "/login", null],
    ["/s/<token>", new URL(shareBody.url).pathname, null],
  ];
  const firstLoadJs: Record<string, number> = {};
  const scriptSizes = new Map<string, number>();
  for (const [label, pathname, bearer] of firstLoadPages) {
    const response = await pool.request({ path: pathname, method: "GET", headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });
    const html = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`GET ${label} answered ${response.statusCode}`);
    const measured = await firstLoadJsGzipBytes(
      html,
      async (script) => Buffer.from(await (await pool.request({ path: script, method: "GET" })).body.arrayBuffer()),
      scriptSizes,
    );
    firstLoadJs[label] = measured.bytes;
  }
  const byLoad: Record<string, number> = {};
  const byIdle: Record<string, number> = {};
  const pageBytes: Record<string, number> = {};
  const browser = await launchChromium();
  stack.onStop("Chromium", () => browser.close());
  for (const [label, pathname, bearer] of firstLoadPages) {
    const measured = await firstLoadInChromium(browser, `${origin}${pathname}`, bearer ? { authorization: `Bearer ${bearer}` } : {});
    byLoad[label] = measured.byLoadBytes;
    byIdle[label] = measured.byIdleBytes;
    pageBytes[label] = measured.htmlBytes;
  }
  await browser.close();
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const firstLoadWidth = Math.max(...Object.keys(firstLoadJs).map((k) => k.length));

  const rows: Array<[string, string, string, string, string]> = [
    ["GET", "p50", "p95", "bytes", "requests"],
    [`/experiments/<id>`, ms(page.p50Ms), ms(page.p95Ms), thousands(page.bytes), String(REQUESTS)],
    [`/api/v1/experiments/<id>/summary`, ms(summaryApi.p50Ms), ms(summaryApi.p95Ms), thousands(summaryApi.bytes), String(REQUESTS)],
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  console.log(
    [
      `Experiment of ${thousands(loaded.runs)} runs (${grid.schedules} schedules × ${grid.repetitions} repetitions × delays {${grid.delaysMs.join(", ")}} ms, every policy and condition), ${thousands(loaded.openEffects)} open effects`,
      `load: runs ${seconds(loaded.timings.runsMs)}, open effects ${seconds(loaded.timings.openEffectsMs)}, total ${seconds(loaded.timings.totalMs)}; VACUUM (ANALYZE) ${seconds(vacuum.ms)}`,
      `experimentSummary in process: p50 ${ms(fast.p50)}, p95 ${ms(fast.p95)} (20 calls; before VACUUM p50 ${ms(beforeVacuum.p50)} of 3)`,
      `reference (aggregated from the runs alone): p50 ${ms(reference.p50)} of 3; equal to experimentSummary: ${exact ? "yes, exactly" : "NO"}`,
      `summary API answer equals the in-process summary: ${apiMatches ? "yes" : "NO"}; page names the experiment: ${pageShowsExperiment ? "yes" : "NO"}`,
      "",
      line(rows[0]!),
      `|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`,
      ...rows.slice(1).map(line),
      `(targets: p95 ≤ 200 ms and ≤ 150 KB per response)`,
      "",
      "First-load JavaScript (gzip bytes of every script the page's HTML loads):",
      ...Object.entries(firstLoadJs).map(
        ([label, bytes]) => `  ${label.padEnd(firstLoadWidth)}  ${kb(bytes).padStart(9)}${bytes > 200 * 1024 ? "  OVER 200 KB" : ""}`,
      ),
      `(target: ≤ 200 KB on every page; largest ${kb(Math.max(...Object.values(firstLoadJs)))})`,
      "",
      "In Chromium (1440×900, nothing cached): served bytes of the scripts fetched by the load event and by network idle; HTML bytes:",
      `  ${"page".padEnd(firstLoadWidth)}  ${"by load".padStart(9)}  ${"by idle".padStart(9)}  ${"HTML".padStart(9)}`,
      ...firstLoadPages.map(
        ([label]) =>
          `  ${label.padEnd(firstLoadWidth)}  ${kb(byLoad[label]!).padStart(9)}  ${kb(byIdle[label]!).padStart(9)}  ${kb(pageBytes[label]!).padStart(9)}${[
            byLoad[label]! > 200 * 1024 ? " OVER 200 KB BY LOAD" : "",
            byIdle[label]! > 300 * 1024 ? " OVER 300 KB BY IDLE" : "",
            pageBytes[label]! > 150 * 1024 ? " HTML OVER 150 KB" : "",
          ].join("")}`,
      ),
      "(targets: ≤ 200 KB by load, ≤ 300 KB by network idle, ≤ 150 KB of HTML on every page)",
    ].join("\n"),
  );

  if (values.json) {
    writeFileSync(
      values.json,
      `${JSON.stringify(
        {
          runs: loaded.runs,
          page,
          summaryApi,
          firstLoadJsGzipBytes: firstLoadJs,
          firstLoadJsByLoadBytes: byLoad,
          firstLoadJsByIdleBytes: byIdle,
          pageBytes,
        },
        null,
        2,
      )}\n`,
    );
    log(`wrote ${values.json}`);
  }
  await stack.shutdown(0, "done");
}

main().catch((error: unknown) => {
  log((error as Error).stack ?? String(error));
  void stack.shutdown(1, "failed");
});

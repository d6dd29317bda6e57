// `npm run bench:ingest -- --json FILE [--runs N] [--clients N] [--web N]`: evaluation ingestion through the
// HTTP API against PostgreSQL's own COPY, and the evaluation page and summary at that size.
//
//  1. A fresh embedded PostgreSQL in a temp folder (never the user's data), migrated; the web server
//     (workers/web.ts, the production build: run `npx next build` first) on a free loopback port; an
//     editor with an API key.
//  2. Evaluation A, created over HTTP with a policy naming most tools. N runs (default 1,000,000),
//     generated deterministically per run (0, 1 or 2 effects, one on average, most with a handle and
//     evidence; 0 to 4 surface touches, two on average, a tenth of them on surfaces shared across
//     tasks; two to four tool calls; a transcript of four messages), sent in batches of 1,000 by CLIENTS concurrent clients
//     (default 4) as the typed client (lib/evaluations/client/api-client.ts) sends them, the bodies serialised
//     before the clock starts: validation, the audit and storage all run, as for any harness.
//     ingestRunsPerSecond = N / wall time of the whole ingest. With `--web W` (default 1) W web
//     processes of one instance (one secret, one database) serve the clients, client c the (c mod W)th,
//     as a load balancer would spread them (docs/scaling.md). Then the database's growth: in all and
//     the eight tables or indexes that grew most, per million runs (`storage`).
//  3. Evaluation B, and the same rows (A's stored runs, effects, resolutions, touches, resets,
//     surface links, unit sizes, surface stats and trace links; B's id, run ids shifted past A's; the tool counts
//     follow by their triggers, as for any writer) loaded with COPY … FROM STDIN,
//     20,000 runs a chunk, one connection. The chunks are formatted before their COPY; only the COPY
//     statements are timed. copyRunsPerSecond = N / their summed time. B's summary must equal A's.
//  4. GET /evaluations/<A> and GET /api/v1/evaluations/<A>/summary, 50 times each after 5 warm-up
//     requests, one at a time on one keep-alive connection (lib/bench/bench-web.ts measureGets);
//     then the first-load JavaScript of each evaluation page (scripts/first-load-js.ts), printed. Then
//     the runs list API (GET …/runs) 20 times each after 2 warm-ups: text searches from one run's text to a
//     word in every transcript, and two sorted pages (target p95 ≤ 300 ms); then the pages a reader opens from
//     there (lib/bench/reading-pages.ts): the runs page searched, two runs side by side, a share link's runs searched.
//
// Writes FILE as {runs, ingestRunsPerSecond, copyRunsPerSecond, ratio, page: {p50Ms, p95Ms, bytes},
// summaryApi: {p50Ms, p95Ms, bytes}, runsList: [{query, what, runsOnFirstPage, p50Ms, p95Ms}], pages: [{path, what, p50Ms, p95Ms}], policyChangeRequestMs (the PUT), policyChangeCompleteMs (from the PUT
// until the recompute job, run in process, applied the version; also policyChangeMs), policyApplyMs (the
// apply's transaction, which holds ingestion back), policyTraceRelinkMs, ingestDuringRecompute: {batches,
// p50Ms, maxMs} (an API client ingesting meanwhile), recordTracesMs, webProcesses,
// storage: {databaseBytes, bytesPerMillionRuns, largestRelations: [{name, kind, bytesPerMillionRuns}]}} (5: a new policy version through the API, after the
// runs' traces are recorded as the worker would) and prints the same with the targets (ratio ≥ 0.5; p95 ≤ 200 ms
// and ≤ 150 KB), never asserted. The clients share the machine with the server and PostgreSQL.
import { mkdtempSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { gunzipSync, gzipSync } from "node:zlib";
import pg from "pg";
import { Pool } from "undici";
import { createAccount, createApiKey } from "../lib/auth/accounts";
import { startEmbeddedPostgres } from "../lib/db/embedded";
import { ensureMigrated } from "../lib/db/migrate";
import { createPrisma } from "../lib/db/prisma";
import { evaluationClient } from "../lib/evaluations/client/api-client";
import { createEvaluation } from "../lib/evaluations/manage/create-evaluation";
import { evaluationTools, largestUnits } from "../lib/evaluations/read/units-and-tools";
import { getEvaluation, listEffectPolicyVersions } from "../lib/evaluations/read/get-evaluation";
import { ingestRuns } from "../lib/evaluations/ingest/ingest-runs";
import { ingestResponseSchema, runRecordSchema } from "../lib/evaluations/run-record-schema";
import { evaluationSummary } from "../lib/evaluations/read/summary";
import { measureReadingPages } from "../lib/bench/reading-pages";
import { measureGets, percentile, requireProductionBuild, startBenchWeb } from "../lib/bench/bench-web";
import { parseBenchFlags } from "../lib/bench/bench-flags";
import { orderedShutdown } from "../lib/testing/ordered-shutdown";
import { copyEvaluationRows } from "../lib/bench/copy-evaluation-rows";
import { databaseSize, sizeGrowth } from "../lib/bench/database-size";
import {
  POLICY,
  syntheticCustomer,
  syntheticLedgerReference,
  syntheticRun,
  syntheticTranscript,
} from "../lib/testing/synthetic-evaluation-runs";
import { recordImportedTraces } from "../lib/evaluations/record-traces/record-traces";
import { applyPendingPolicy } from "../lib/evaluations/policy-recompute/recompute";
import { firstLoadJsGzipBytes } from "./first-load-js";

const log = (line: string) => console.error(`bench:ingest: ${line}`);

const values = parseBenchFlags("bench:ingest", {
  runs: { default: 1_000_000, min: 1, max: 10_000_000 },
  clients: { default: 4, min: 1, max: 64 },
  web: { default: 1, min: 1, max: 4 },
});
const RUNS = values.runs;
const CLIENTS = values.clients;
const WEB_PROCESSES = values.web;
const BATCH = 1_000;
const COPY_CHUNK_RUNS = 20_000;
const REQUESTS = 50;
/** Each text search of the runs list is asked this many times (after two warm-ups): four of them, at 1,000,000 runs. */
const SEARCH_REQUESTS = 20;

/** Run `i` with its conversation: the runs list's search reads transcripts. */
const benchRun = (i: number) => ({ ...syntheticRun(i), messages: syntheticTranscript(i) });
const WARMUP_REQUESTS = 5;

requireProductionBuild("bench:ingest", log);
const dataDir = mkdtempSync(path.join(tmpdir(), "bl-bench-ingest-"));
const stack = orderedShutdown({ dataDir, stopTimeoutMs: 15_000, log, signalExitCode: 130, logReasonOnSuccess: false });

async function main(): Promise<void> {
  const database = await startEmbeddedPostgres(dataDir, log);
  stack.onStop("PostgreSQL", () => database.stop());
  await ensureMigrated(database.url, log);
  const db = createPrisma(database.url);
  stack.onStop("database client", () => db.$disconnect());
  // Each server one process (WEB_PROCESSES=1), so that --web W compares W processes with one.
  const oneProcess = { WEB_PROCESSES: "1" };
  const { origin, auth, pool, authSecret } = await startBenchWeb({ db, databaseUrl: database.url, dataDir, log, stack, env: oneProcess });
  // More web processes of the same instance (its secret, its database), for the clients to share.
  const origins = [origin];
  for (let i = 1; i < WEB_PROCESSES; i++)
    origins.push((await startBenchWeb({ db, databaseUrl: database.url, dataDir, log, stack, authSecret, env: oneProcess })).origin);
  const sizeBefore = await databaseSize(db);
  const editor = await createAccount(auth, {
    email: "bench@ingest.test",
    password: "a password for the benchmark",
    name: "bench",
    role: "editor",
  });
  const { key } = await createApiKey(auth, editor.id, "bench:ingest");
  const client = evaluationClient({ baseUrl: origin, apiKey: key });

  // 2. Through the API.
  const { id: viaApi } = await client.createEvaluation({
    name: "bench:ingest via the API",
    harness: "synthetic",
    benchmark: "bench",
    effectPolicy: { tools: { ...POLICY.tools } },
  });
  const batches = Math.ceil(RUNS / BATCH);
  // The request bodies are made before the clock starts, as the COPY's text is: generating and
  // serialising 1,000 runs took the clients ~35 ms a batch of the same two cores the server needs.
  // They are kept gzipped (1 MB a batch is 10 GB at 10,000,000 runs, 128 KB gzipped) and unzipped
  // as each is sent, ~2.5 ms a batch.
  const bodies = Array.from({ length: batches }, (_, b) =>
    gzipSync(JSON.stringify({ runs: Array.from({ length: Math.min(BATCH, RUNS - b * BATCH) }, (_, k) => benchRun(b * BATCH + k)) }), {
      level: 1,
    }),
  );
  log(
    `made ${batches.toLocaleString("en-US")} request bodies, ${Math.round(bodies.reduce((sum, body) => sum + body.length, 0) / 1e6).toLocaleString("en-US")} MB gzipped`,
  );
  // Client c sends to web process c mod WEB_PROCESSES, as a load balancer would spread them.
  const ingestPools = origins.map((o) => new Pool(o, { connections: Math.ceil(CLIENTS / WEB_PROCESSES) }));
  stack.onStop("ingest HTTP clients", async () => void (await Promise.all(ingestPools.map((p) => p.close()))));
  const ingestBody = async (client: number, body: Buffer) => {
    const response = await ingestPools[client % WEB_PROCESSES]!.request({
      path: `/api/v1/evaluations/${viaApi}/runs`,
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: gunzipSync(body),
    });
    if (response.statusCode !== 200) throw new Error(`the ingest answered ${response.statusCode}: ${await response.body.text()}`);
    return ingestResponseSchema.parse(await response.body.json());
  };
  let nextBatch = 0;
  let done = 0;
  let errors = 0;
  const clientCpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let b = nextBatch++; b < batches; b = nextBatch++) {
        const { results } = await ingestBody(c, bodies[b]!);
        errors += results.filter((r) => r.status === "error").length;
        done += results.length;
        if (Math.floor((10 * done) / RUNS) > Math.floor((10 * (done - results.length)) / RUNS))
          log(`ingested ${done.toLocaleString("en-US")} runs (load ${loadavg()[0]!.toFixed(1)})`);
      }
    }),
  );
  const ingestMs = performance.now() - started;
  const { user, system } = process.cpuUsage(clientCpu);
  log(`the clients' process used ${Math.round((100 * (user + system)) / 1000 / ingestMs)}% of one core during the ingest`);
  bodies.length = 0;
  if (errors) throw new Error(`${errors} runs were refused: the generator makes only valid runs`);
  const ingestRunsPerSecond = Math.round(RUNS / (ingestMs / 1000));
  log(
    `API: ${RUNS.toLocaleString("en-US")} runs in ${(ingestMs / 1000).toFixed(1)} s, ${ingestRunsPerSecond} runs/s (${WEB_PROCESSES} web process${WEB_PROCESSES > 1 ? "es" : ""})`,
  );
  // What the ingested runs take on disk (before the COPY's copy of them), and where it grows.
  const storage = sizeGrowth(sizeBefore, await databaseSize(db), RUNS);
  log(
    `the ingested runs take ${Math.round(storage.bytesPerMillionRuns / 1e6).toLocaleString("en-US")} MB per million runs; largest growth:`,
  );
  for (const r of storage.largestRelations)
    log(`  ${r.name} (${r.kind}): ${Math.round(r.bytesPerMillionRuns / 1e6).toLocaleString("en-US")} MB per million runs`);

  // 3. The same rows with COPY.
  const viaCopy = await createEvaluation(db, { name: "bench:ingest via COPY", effectPolicy: { tools: { ...POLICY.tools } } }, editor.id);
  const pgClient = new pg.Client({ connectionString: database.url });
  await pgClient.connect();
  stack.onStop("COPY connection", () => pgClient.end());
  const copyMs = await copyEvaluationRows(pgClient, viaApi, viaCopy, COPY_CHUNK_RUNS);
  const copyRunsPerSecond = Math.round(RUNS / (copyMs / 1000));
  log(`COPY: ${RUNS.toLocaleString("en-US")} runs with their rows in ${(copyMs / 1000).toFixed(1)} s, ${copyRunsPerSecond} runs/s`);
  const [summaryApi, summaryCopy] = await Promise.all([evaluationSummary(db, viaApi), evaluationSummary(db, viaCopy)]);
  const sameFigures = isDeepStrictEqual({ ...summaryApi, evaluationId: "" }, { ...summaryCopy, evaluationId: "" });
  log(`the copied evaluation's summary ${sameFigures ? "equals" : "DIFFERS from"} the ingested one's`);

  // 4. The page and the summary API.
  await pgClient.query("VACUUM (ANALYZE)");
  const step = async (work: () => unknown) => {
    const t = performance.now();
    await work();
    return Math.round(performance.now() - t);
  };
  // The page's queries one by one in this process (median of 5): where its time goes.
  const detail = (await getEvaluation(db, viaApi))!;
  const queries: [string, () => Promise<unknown>][] = [
    ["getEvaluation", () => getEvaluation(db, viaApi)],
    ["evaluationSummary", () => evaluationSummary(db, viaApi)],
    ["largestUnits", () => largestUnits(db, viaApi)],
    ["evaluationTools", () => evaluationTools(db, viaApi, detail.effectPolicy)],
    ["listEffectPolicyVersions", () => listEffectPolicyVersions(db, viaApi)],
  ];
  for (const [name, query] of queries) {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) times.push(await step(query));
    log(`page query ${name}: median ${percentile(times, 50)} ms`);
  }
  let pageShowsIt = false;
  const page = await measureGets(pool, `/evaluations/${viaApi}`, {
    apiKey: key,
    warmup: WARMUP_REQUESTS,
    requests: REQUESTS,
    check: (body) => (pageShowsIt = body.toString("utf8").includes("bench:ingest via the API")),
  });
  const summary = await measureGets(pool, `/api/v1/evaluations/${viaApi}/summary`, {
    apiKey: key,
    warmup: WARMUP_REQUESTS,
    requests: REQUESTS,
    check: () => {},
  });

  // The runs list's text search (target p95 ≤ 300 ms each), from the rarest text to one in every transcript, and two sorted pages.
  const middle = Math.floor(RUNS / 2);
  const runsListQueries: [string, string][] = [
    ["one run's ledger reference (a tool's answer)", `q=${encodeURIComponent(syntheticLedgerReference(middle))}`],
    ["a customer's name (about 1 run in 500)", `q=${encodeURIComponent(syntheticCustomer(middle))}`],
    ["a task id (1 run in 2,000)", `q=task-${middle % 2_000}`],
    ["a word in every transcript", "q=reconcile"],
    ["sorted by duration, longest first", "sort=duration&order=desc"],
    ["unresolved runs sorted by score", "finality=unresolved&sort=score"],
  ];
  const runsList: { query: string; what: string; runsOnFirstPage: number; p50Ms: number; p95Ms: number }[] = [];
  for (const [what, query] of runsListQueries) {
    let runsOnFirstPage = 0;
    const figures = await measureGets(pool, `/api/v1/evaluations/${viaApi}/runs?${query}`, {
      apiKey: key,
      warmup: 2,
      requests: SEARCH_REQUESTS,
      check: (body) => (runsOnFirstPage = (JSON.parse(body.toString("utf8")) as { runs: unknown[] }).runs.length),
    });
    runsList.push({ query, what, runsOnFirstPage, p50Ms: figures.p50Ms, p95Ms: figures.p95Ms });
    log(`runs list ${query} (${what}): ${runsOnFirstPage} runs on the first page, p50 ${figures.p50Ms} ms, p95 ${figures.p95Ms} ms`);
  }

  const pages = await measureReadingPages({ origin, pool, apiKey: key, evaluationId: viaApi, middle, requests: SEARCH_REQUESTS, log });

  // 5. A new policy version on the ingested evaluation (files.write, unclassified so far, declared external), through
  // the API: the request saves it and enqueues its recompute; the recompute job then runs here, in process, as
  // a worker would run it (none runs here), while a client goes on ingesting batches of new runs through the
  // API, to show that ingestion goes on meanwhile and how long a batch waits at the apply. The runs' traces are
  // recorded first, as the worker's record_traces job would have done after the ingest, and timed apart.
  const tracesStarted = performance.now();
  await recordImportedTraces(db, viaApi);
  const tracesMs = Math.round(performance.now() - tracesStarted);
  const policyStarted = performance.now();
  const { version } = await client.setEffectPolicy(viaApi, { tools: { ...POLICY.tools, "files.write": "external" } });
  const policyChangeRequestMs = Math.round(performance.now() - policyStarted);
  let policyChangeCompleteMs = 0;
  let applyMs = 0;
  let stepStarted = performance.now();
  let recomputing = true;
  const batchesDuring: number[] = [];
  const ingesting = (async () => {
    for (let b = 0; recomputing; b++) {
      const runs = Array.from({ length: BATCH }, (_, k) => benchRun(RUNS + 100_000 + b * BATCH + k));
      const started = performance.now();
      await client.ingestRuns(viaApi, runs);
      batchesDuring.push(performance.now() - started);
    }
  })();
  await applyPendingPolicy(db, viaApi, {
    afterStep: (step) => {
      if (step === "applied") {
        applyMs = Math.round(performance.now() - stepStarted);
        policyChangeCompleteMs = Math.round(performance.now() - policyStarted);
        recomputing = false;
      }
      stepStarted = performance.now();
    },
  });
  const relinkMs = Math.round(performance.now() - policyStarted) - policyChangeCompleteMs;
  recomputing = false;
  await ingesting;
  const applied = (await getEvaluation(db, viaApi))!.effectPolicyVersion;
  if (applied !== version) throw new Error(`the recompute left version ${applied} applied, not ${version}`);
  const ingestDuringRecompute = {
    batches: batchesDuring.length,
    p50Ms: Math.round(percentile(batchesDuring, 50)),
    maxMs: Math.round(Math.max(0, ...batchesDuring)),
  };
  log(
    `traces of ${RUNS.toLocaleString("en-US")} runs recorded in ${tracesMs} ms (the worker's job, in process); policy version ${version}: ` +
      `request ${policyChangeRequestMs} ms, applied ${policyChangeCompleteMs} ms after it was sent (the apply's transaction ${applyMs} ms), ` +
      `trace links moved ${relinkMs} ms later; meanwhile ${ingestDuringRecompute.batches} batches of ${BATCH} runs ingested through the API ` +
      `(p50 ${ingestDuringRecompute.p50Ms} ms, longest ${ingestDuringRecompute.maxMs} ms)`,
  );

  // First-load JavaScript of the evaluation pages as the editor sees them (the policy form and the share panel included); budget 200 KB gzip.
  const scriptSizes = new Map<string, number>();
  for (const pathname of [
    "/evaluations",
    "/evaluations/new",
    `/evaluations/${viaApi}`,
    `/evaluations/${viaApi}/runs`,
    `/evaluations/${viaApi}/runs/run-0`,
  ]) {
    const html = await (await pool.request({ path: pathname, method: "GET", headers: { authorization: `Bearer ${key}` } })).body.text();
    const { bytes } = await firstLoadJsGzipBytes(
      html,
      async (script) => Buffer.from(await (await pool.request({ path: script, method: "GET" })).body.arrayBuffer()),
      scriptSizes,
    );
    log(`first-load JavaScript of ${pathname.replace(viaApi, "<id>")}: ${bytes.toLocaleString("en-US")} bytes gzip (budget 200 KB)`);
  }

  // Where a batch's time goes: after the measurements, one more batch of 1,000 new runs taken apart
  // in this process (JSON round trip, the schema alone, ingestRuns on the database), and one through HTTP.
  const profileRuns = (from: number) => Array.from({ length: BATCH }, (_, k) => benchRun(RUNS + from + k));
  const batch = profileRuns(0);
  const jsonMs = await step(() => JSON.parse(JSON.stringify({ runs: batch })));
  const schemaMs = await step(() => batch.forEach((run) => runRecordSchema.parse(run)));
  const inProcessMs = await step(() => ingestRuns(db, viaApi, batch));
  const httpBatch = profileRuns(BATCH);
  const httpMs = await step(() => client.ingestRuns(viaApi, httpBatch));
  log(
    `one batch of ${BATCH} new runs: JSON round trip ${jsonMs} ms, schema ${schemaMs} ms, ingestRuns in process (schema, audit, storage) ${inProcessMs} ms; through HTTP ${httpMs} ms`,
  );

  const ratio = Math.round((ingestRunsPerSecond / copyRunsPerSecond) * 1000) / 1000;
  const figures = {
    runs: RUNS,
    ingestRunsPerSecond,
    copyRunsPerSecond,
    ratio,
    page,
    summaryApi: summary,
    runsList,
    pages,
    // Since recomputes are jobs, policyChangeMs is the time until the new version is applied (it was the request's, which recomputed).
    policyChangeMs: policyChangeCompleteMs,
    policyChangeRequestMs,
    policyChangeCompleteMs,
    policyApplyMs: applyMs,
    policyTraceRelinkMs: relinkMs,
    ingestDuringRecompute,
    recordTracesMs: tracesMs,
    webProcesses: WEB_PROCESSES,
    storage,
  };
  const verdict = (ok: boolean) => (ok ? "met" : "NOT met");
  const within = (f: typeof page) => f.p95Ms <= 200 && f.bytes <= 150 * 1024;
  console.log(
    [
      `${RUNS.toLocaleString("en-US")} runs, ${CLIENTS} clients, batches of ${BATCH}; summary of ${summaryApi.runs} runs: reported ${summaryApi.reported.successes}/${summaryApi.reported.n}, final ${summaryApi.final.successes}/${summaryApi.final.n}, unresolved ${summaryApi.unresolved.n}, units ${summaryApi.units.analysisUnits}/${summaryApi.units.runRows}`,
      `ingest through the API ${ingestRunsPerSecond} runs/s, COPY ${copyRunsPerSecond} runs/s: ratio ${ratio} (target ≥ 0.5): ${verdict(ratio >= 0.5)}`,
      `page p50 ${page.p50Ms} ms, p95 ${page.p95Ms} ms, ${page.bytes} bytes${pageShowsIt ? "" : " (the page did NOT show the evaluation)"} (target p95 ≤ 200 ms, ≤ 150 KB): ${verdict(within(page))}`,
      `summary API p50 ${summary.p50Ms} ms, p95 ${summary.p95Ms} ms, ${summary.bytes} bytes (same target): ${verdict(within(summary))}`,
      ...runsList.map(
        (r) =>
          `runs list ${r.query}: p50 ${r.p50Ms} ms, p95 ${r.p95Ms} ms (${r.runsOnFirstPage} runs; target p95 ≤ 300 ms): ${verdict(r.p95Ms <= 300)}`,
      ),
    ].join("\n"),
  );
  if (values.json) {
    writeFileSync(values.json, `${JSON.stringify(figures, null, 2)}\n`);
    log(`wrote ${values.json}`);
  }
  await stack.shutdown(0, "done");
}

main().catch((error: unknown) => {
  log((error as Error).stack ?? String(error));
  void stack.shutdown(1, "failed");
});

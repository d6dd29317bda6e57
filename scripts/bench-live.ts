// `npm run bench:live -- --json FILE [--runs N] [--events N] [--clients N] [--prefill N]`: live runs through the HTTP routes.
//
//  1. A fresh embedded PostgreSQL in a temp folder, migrated; the web server (workers/web.ts, the
//     production build: run `npx next build` first) on a free loopback port; an editor's API key.
//  2. An evaluation whose policy classes the transfer tool async_handle. PREFILL runs (default 0) are
//     ingested first, through the ingest API in batches of 1,000: each the record a live run of the
//     same events makes (timeline.ts, liveRunRecord), so that the scores below are timed in an
//     evaluation of PREFILL + RUNS runs without scoring every one of them live. RUNS live runs (default
//     1,000) are opened, then each run's EVENTS events (default 100: effects requested, pending, most
//     completed; touches; a reset) are sent in one request per run by CLIENTS concurrent clients
//     (default 4), the bodies made before the clock starts. eventsPerSecond = RUNS·EVENTS / the wall
//     time of that phase (every event admitted and stored, none refused: checked).
//  3. Every live run scored, CLIENTS at a time; scoreP50Ms / P95Ms / P99Ms are percentiles of those
//     requests (each makes the run's record from its events and audits it, as ingestion does).
//  4. recorderOverheadP50Ms / P99Ms: the MCP recorder's added latency per tool call against a local
//     server: CALLS calls (default 2,000) of the tests' bank's `ping` (no I/O) from an MCP SDK client,
//     one at a time, straight to the server over stdio and then through `workers/mcp-record.ts`
//     (recording into this instance), after 200 warm-up calls each; the overhead is the difference
//     of the two latency percentiles. recorderHttpOverheadP50Ms / P99Ms: the same over Streamable HTTP
//     (the bank served in this process, the recorder in `--listen 0 --upstream` mode as its own process).
//
// Writes FILE as {prefilled, runs, events, eventsPerSecond, scoreP50Ms, scoreP95Ms, scoreP99Ms, recorderOverheadP50Ms,
// recorderOverheadP99Ms, recorderHttpOverheadP50Ms, recorderHttpOverheadP99Ms, load} and prints it
// with the targets (≥ 5,000 events/s; score p95 ≤ 50 ms and p99 ≤ 150 ms; recorder ≤ 2 ms p50, ≤ 10 ms
// p99), never asserted.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { evaluationClient } from "../lib/evaluations/client/api-client";
import { liveEventSchema, liveEventsAnswerSchema } from "../lib/evaluations/live/live-run-schemas";
import { liveRunRecord } from "../lib/evaluations/live/timeline";
import { parseBenchFlags } from "../lib/bench/bench-flags";
import { serveBankOverHttp } from "../lib/testing/mcp-bank";
import { percentile, reportFigures, requireProductionBuild, startBenchApi } from "../lib/bench/bench-web";
import { orderedShutdown } from "../lib/testing/ordered-shutdown";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

const log = (line: string) => console.error(`bench:live: ${line}`);
const values = parseBenchFlags("bench:live", {
  runs: { default: 1_000, min: 1, max: 100_000 },
  events: { default: 100, min: 4, max: 5_000 },
  clients: { default: 4, min: 1, max: 64 },
  prefill: { default: 0, min: 0, max: 1_000_000 },
  calls: { default: 2_000, min: 10, max: 100_000 },
});

requireProductionBuild("bench:live", log);
const dataDir = mkdtempSync(path.join(tmpdir(), "bl-bench-live-"));
const stack = orderedShutdown({ dataDir, stopTimeoutMs: 15_000, log, signalExitCode: 130, logReasonOnSuccess: false });

const T0 = Date.parse("2026-12-04T10:00:00.000Z");
const iso = (ms: number) => new Date(T0 + ms).toISOString();

/** One run's events: a third effects (requested, pending, and most completed), the rest touches, one reset. */
function eventsOf(run: number, count: number): object[] {
  const events: object[] = [{ eventId: "reset", type: "reset", at: iso(0), surface: `acct:${run % 50}`, verified: run % 2 === 0 }];
  for (let i = 0; events.length < count; i++) {
    const effectId = `tx-${i}`;
    if (events.length + 3 <= count && i % 2 === 0) {
      events.push({
        eventId: `r${i}`,
        type: "effect_requested",
        at: iso(10 + i),
        effectId,
        tool: "bank.send_money",
        handle: `task-${run}-${i}`,
        surface: `acct:${(run + i) % 50}`,
      });
      events.push({ eventId: `p${i}`, type: "effect_status", at: iso(11 + i), effectId, status: "pending" });
      events.push({ eventId: `c${i}`, type: "effect_status", at: iso(i % 6 === 0 ? 5_000 + i : 12 + i), effectId, status: "completed" });
    } else {
      events.push({
        eventId: `t${i}`,
        type: "touch",
        at: iso(10 + i),
        surface: `acct:${(run * 7 + i) % 50}`,
        op: i % 3 === 0 ? "write" : "read",
      });
    }
  }
  return events;
}

/** Runs `work` over the items, `clients` at a time; answers each item's latency in milliseconds. */
async function concurrently<T>(items: readonly T[], clients: number, work: (item: T) => Promise<void>): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < items.length) {
        const item = items[next++]!;
        const started = performance.now();
        await work(item);
        latencies.push(performance.now() - started);
      }
    }),
  );
  return latencies;
}

async function main(): Promise<void> {
  const { origin, key } = await startBenchApi("bench:live", dataDir, log, stack);
  const client = evaluationClient({ baseUrl: origin, apiKey: key });
  const { id } = await client.createEvaluation({ name: "bench:live", effectPolicy: { tools: { "bank.send_money": "async_handle" } } });

  for (let from = 0; from < values.prefill; from += 1_000) {
    const batch = Array.from({ length: Math.min(1_000, values.prefill - from) }, (_, k) => {
      const run = values.runs + from + k;
      const head = { externalId: `prefilled-${run}`, taskId: `task-${run % 10}`, groupId: null, attempt: null, startedAtMs: T0 };
      const events = eventsOf(run, values.events).map((event) => liveEventSchema.parse(event));
      return liveRunRecord(head, events, { scoredAtMs: T0 + 1_000, endpointLabel: "success" });
    });
    const refused = (await client.ingestRuns(id, batch)).results.filter((r) => r.status !== "created");
    if (refused.length > 0) throw new Error(`prefilled runs were not created: ${JSON.stringify(refused.slice(0, 3))}`);
    if ((from / 1_000) % 10 === 9) log(`prefilled ${from + batch.length} runs`);
  }
  const runs = Array.from({ length: values.runs }, (_, i) => `live-${i}`);
  await concurrently(runs, values.clients, async (externalId) => {
    await client.openLiveRun(id, { externalId, taskId: `task-${externalId.length % 10}`, startedAt: iso(0) });
  });
  const bodies = runs.map((externalId, i) => ({ externalId, body: JSON.stringify({ events: eventsOf(i, values.events) }) }));
  log(`opened ${values.runs} live runs; sending ${values.events} events each`);
  let refused = 0;
  const started = performance.now();
  await concurrently(bodies, values.clients, async ({ externalId, body }) => {
    const response = await fetch(`${origin}/api/v1/evaluations/${id}/live-runs/${externalId}/events`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body,
    });
    const answer = liveEventsAnswerSchema.parse(await response.json());
    refused += answer.errors.length;
  });
  const eventsSeconds = (performance.now() - started) / 1000;
  if (refused > 0) throw new Error(`${refused} events were refused: the bench's events must all be valid`);
  const scores = await concurrently(runs, values.clients, async (externalId) => {
    await client.scoreLiveRun(id, externalId, { endpointLabel: "success", at: iso(1_000) });
  });
  const summary = await client.summary(id);
  log(`scored: ${summary.runs} runs, ${summary.unresolved.n} unresolved, ${summary.units.analysisUnits} analysis units`);

  const { id: recorded } = await client.createEvaluation({ name: "bench:live recorder" });
  const recorderFlags = ["--evaluation", recorded, "--run", "ping", "--api", origin, "--spool", dataDir];
  const recorderScript = ["--import", "tsx", path.resolve("workers/mcp-record.ts")];
  const bank = ["--import", "tsx", path.resolve("lib/testing/mcp-bank-server.ts")];
  const overStdio = (recorder: boolean) =>
    new StdioClientTransport({
      command: process.execPath,
      args: recorder ? [...recorderScript, ...recorderFlags, "--", process.execPath, ...bank] : bank,
      env: { ...getDefaultEnvironment(), BOUNDARY_LAB_API_KEY: key, DELAYED_WRITE_URL: "http://127.0.0.1:9" },
      stderr: "inherit",
    });
  const pingLatencies = async (transport: Transport): Promise<number[]> => {
    const agent = new Client({ name: "bench:live", version: "1" });
    await agent.connect(transport);
    const latencies: number[] = [];
    for (let i = 0; i < 200 + values.calls; i++) {
      const started = performance.now();
      await agent.callTool({ name: "ping", arguments: {} });
      if (i >= 200) latencies.push(performance.now() - started);
    }
    await agent.close();
    return latencies;
  };
  const direct = await pingLatencies(overStdio(false));
  const throughRecorder = await pingLatencies(overStdio(true));
  log(
    `ping over stdio p50/p99: direct ${percentile(direct, 50).toFixed(2)}/${percentile(direct, 99).toFixed(2)} ms, through the recorder ${percentile(throughRecorder, 50).toFixed(2)}/${percentile(throughRecorder, 99).toFixed(2)} ms`,
  );
  // The same over Streamable HTTP: the bank served in this process, the recorder its own process in front of it.
  const httpBank = await serveBankOverHttp({ DELAYED_WRITE_URL: "http://127.0.0.1:9", BANK_NAMESPACE: "bank", TRANSFER_DELAY_MS: 0 });
  const recorder = spawn(process.execPath, [...recorderScript, ...recorderFlags, "--listen", "0", "--upstream", httpBank.url], {
    env: { ...process.env, BOUNDARY_LAB_API_KEY: key },
    stdio: ["ignore", "inherit", "pipe"],
  });
  const recorderUrl = await new Promise<string>((resolve, reject) => {
    let said = "";
    recorder.stderr!.on("data", (chunk: Buffer) => {
      said += chunk.toString();
      const listening = /listening on (http:\S+)/.exec(said);
      if (listening) resolve(listening[1]!);
    });
    recorder.once("exit", (code) => reject(new Error(`the recorder exited (${code}): ${said}`)));
  });
  const httpDirect = await pingLatencies(new StreamableHTTPClientTransport(new URL(httpBank.url)));
  const httpThroughRecorder = await pingLatencies(new StreamableHTTPClientTransport(new URL(recorderUrl)));
  recorder.kill("SIGTERM");
  await httpBank.close();
  log(
    `ping over HTTP p50/p99: direct ${percentile(httpDirect, 50).toFixed(2)}/${percentile(httpDirect, 99).toFixed(2)} ms, through the recorder ${percentile(httpThroughRecorder, 50).toFixed(2)}/${percentile(httpThroughRecorder, 99).toFixed(2)} ms`,
  );

  const result = {
    prefilled: values.prefill,
    runs: values.runs,
    events: values.runs * values.events,
    eventsPerSecond: Math.round((values.runs * values.events) / eventsSeconds),
    scoreP50Ms: Number(percentile(scores, 50).toFixed(1)),
    scoreP95Ms: Number(percentile(scores, 95).toFixed(1)),
    scoreP99Ms: Number(percentile(scores, 99).toFixed(1)),
    recorderOverheadP50Ms: Number((percentile(throughRecorder, 50) - percentile(direct, 50)).toFixed(2)),
    recorderOverheadP99Ms: Number((percentile(throughRecorder, 99) - percentile(direct, 99)).toFixed(2)),
    recorderHttpOverheadP50Ms: Number((percentile(httpThroughRecorder, 50) - percentile(httpDirect, 50)).toFixed(2)),
    recorderHttpOverheadP99Ms: Number((percentile(httpThroughRecorder, 99) - percentile(httpDirect, 99)).toFixed(2)),
    load: loadavg().map((l) => Number(l.toFixed(2))),
  };
  reportFigures(result, values.json, log);
  console.log(
    `targets: eventsPerSecond ≥ 5,000 (${result.eventsPerSecond.toLocaleString("en-US")}); score p95 ≤ 50 ms (${result.scoreP95Ms}), p99 ≤ 150 ms (${result.scoreP99Ms}) at ${(values.prefill + values.runs).toLocaleString("en-US")} runs; recorder overhead (stdio and HTTP) ≤ 2 ms p50, ≤ 10 ms p99`,
  );
  await stack.shutdown(0, "done");
}

main().catch((error: unknown) => {
  log((error as Error).stack ?? String(error));
  void stack.shutdown(1, "failed");
});

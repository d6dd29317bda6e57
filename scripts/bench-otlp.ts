// `npm run bench:otlp -- --json FILE [--runs N] [--batch N] [--clients N]`: OTLP in (docs/otel.md) against
// the JSON ingest API, for the same runs, in the same process.
//
//  1. A fresh embedded PostgreSQL in a temp folder, migrated; the web server (workers/web.ts, the
//     production build: run `npx next build` first) on a free loopback port; an editor's API key.
//  2. RUNS runs (default 2,000), each a trace of an invoke_agent span and 10 execute_tool spans
//     (a transfer tool: most completed, every third acknowledged pending with a handle and completed
//     later by a span event; each touches an account of 50) scored by a gen_ai.evaluation.result event.
//     Made before any clock starts: the OTLP requests (BATCH traces each, default 100) encoded as
//     protobuf, and the same runs as ingest records (the receiver's own mapping, liveRunRecord).
//  3. ingestApiRunsPerSecond: the records POSTed to /api/v1/evaluations/{id}/runs, 1,000 a request,
//     CLIENTS at a time (default 2), into one evaluation; runsPerSecond and spansPerSecond: the OTLP
//     requests POSTed to /api/otel/v1/traces (application/x-protobuf), CLIENTS at a time, into
//     another with the same policy. ratio = runsPerSecond / ingestApiRunsPerSecond (target ≥ 0.5).
//     Both evaluations end with the same figures (checked: finality counts and units).
//
// Writes FILE as {runs, spans, spansPerSecond, runsPerSecond, ingestApiRunsPerSecond, ratio, load}
// and prints it; the target is printed, never asserted.
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { evaluationClient } from "../lib/evaluations/client/api-client";
import { liveEventSchema } from "../lib/evaluations/live/live-run-schemas";
import { liveRunRecord } from "../lib/evaluations/live/timeline";
import { planTraces } from "../lib/evaluations/otel/mapping";
import { readScore } from "../lib/evaluations/otel/scores";
import { encodeTraceRequest } from "../lib/evaluations/otel/otlp-wire";
import { spansOfRequest } from "../lib/evaluations/otel/spans";
import { parseBenchFlags } from "../lib/bench/bench-flags";
import { reportFigures, requireProductionBuild, startBenchApi } from "../lib/bench/bench-web";
import { orderedShutdown } from "../lib/testing/ordered-shutdown";

const log = (line: string) => console.error(`bench:otlp: ${line}`);
const values = parseBenchFlags("bench:otlp", {
  runs: { default: 2_000, min: 1, max: 100_000 },
  batch: { default: 100, min: 1, max: 1_000 },
  clients: { default: 2, min: 1, max: 16 },
});
const TOOL_SPANS = 10;

requireProductionBuild("bench:otlp", log);
const dataDir = mkdtempSync(path.join(tmpdir(), "bl-bench-otlp-"));
const stack = orderedShutdown({ dataDir, stopTimeoutMs: 15_000, log, signalExitCode: 130, logReasonOnSuccess: false });

const T0 = Date.parse("2026-12-04T10:00:00.000Z");
const nanos = (ms: number) => `${BigInt(T0 + ms) * 1_000_000n}`;
const hex = (n: number, digits: number) => n.toString(16).padStart(digits, "0");
const str = (key: string, value: string) => ({ key, value: { stringValue: value } });

/** One run's trace in OTLP/JSON's shape: the agent's span, 10 tool spans, the score on the agent's span. */
function traceOf(run: number) {
  const traceId = hex(run + 1, 32);
  const rootId = hex(run * 16 + 1, 16);
  const tools = Array.from({ length: TOOL_SPANS }, (_, i) => {
    const start = 10 + i * 20;
    const pending = i % 3 === 0;
    return {
      traceId,
      spanId: hex(run * 16 + 2 + i, 16),
      parentSpanId: rootId,
      name: "execute_tool send_money",
      startTimeUnixNano: nanos(start),
      endTimeUnixNano: nanos(start + 10),
      attributes: [
        str("gen_ai.operation.name", "execute_tool"),
        str("gen_ai.tool.name", "bank.send_money"),
        str("gen_ai.tool.call.id", `call-${i}`),
        str("boundary_lab.effect.surface", `acct:${(run + i) % 50}`),
        ...(pending ? [str("boundary_lab.effect.status", "pending"), str("boundary_lab.effect.handle", `op-${run}-${i}`)] : []),
      ],
      events: pending
        ? [
            {
              name: "boundary_lab.effect.status",
              timeUnixNano: nanos(i % 6 === 0 ? 5_000 : start + 15),
              attributes: [str("boundary_lab.effect.status", "completed")],
            },
          ]
        : [],
    };
  });
  const root = {
    traceId,
    spanId: rootId,
    name: "invoke_agent banker",
    startTimeUnixNano: nanos(0),
    endTimeUnixNano: nanos(1_000),
    attributes: [
      str("gen_ai.operation.name", "invoke_agent"),
      str("boundary_lab.run.id", `otlp-${run}`),
      str("boundary_lab.task.id", `task-${run % 10}`),
    ],
    events: [
      {
        name: "gen_ai.evaluation.result",
        timeUnixNano: nanos(900),
        attributes: [str("gen_ai.evaluation.score.label", run % 4 === 0 ? "failure" : "success")],
      },
    ],
  };
  return [root, ...tools];
}

const requestOf = (evaluation: string, runs: readonly number[]) => ({
  resourceSpans: [
    {
      resource: { attributes: [str("service.name", "bench-otlp"), str("boundary_lab.evaluation", evaluation)] },
      scopeSpans: [{ spans: runs.flatMap(traceOf) }],
    },
  ],
});

/** Runs `work` over the items, `clients` at a time. */
async function concurrently<T>(items: readonly T[], clients: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

const chunks = <T>(items: readonly T[], size: number) =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

async function main(): Promise<void> {
  const { origin, key } = await startBenchApi("bench:otlp", dataDir, log, stack);
  const client = evaluationClient({ baseUrl: origin, apiKey: key });
  const effectPolicy = { tools: { "bank.send_money": "async_handle" as const } };
  const { id: ingested } = await client.createEvaluation({ name: "bench:otlp ingest API", effectPolicy });
  const { id: received } = await client.createEvaluation({ name: "bench:otlp OTLP", effectPolicy });

  const runs = Array.from({ length: values.runs }, (_, i) => i);
  const requests = chunks(runs, values.batch).map((batch) => Buffer.from(encodeTraceRequest(requestOf(received, batch))));
  // The same runs as the receiver makes them: its mapping, then the live-run record.
  const records = planTraces(spansOfRequest(requestOf(received, runs))).traces.map((trace) =>
    liveRunRecord(
      { externalId: trace.runId!, taskId: trace.taskId!, groupId: null, attempt: null, startedAtMs: trace.startedAtMs },
      trace.events.map((e) => liveEventSchema.parse(e.event)),
      { scoredAtMs: trace.score!.atMs, endpointLabel: readScore(trace.score!, { labelMap: null, scoreThreshold: null }).endpointLabel! },
    ),
  );
  const spans = values.runs * (TOOL_SPANS + 1);
  log(`made ${values.runs} runs: ${requests.length} OTLP requests (${spans} spans), ${Math.ceil(values.runs / 1_000)} ingest requests`);

  let started = performance.now();
  await concurrently(chunks(records, 1_000), values.clients, async (batch) => {
    const answer = await client.ingestRuns(ingested, batch);
    const refused = answer.results.filter((r) => r.status === "error");
    if (refused.length > 0) throw new Error(`the ingest API refused ${refused.length} runs: ${JSON.stringify(refused[0])}`);
  });
  const ingestSeconds = (performance.now() - started) / 1000;

  started = performance.now();
  await concurrently(requests, values.clients, async (body) => {
    const answer = await fetch(`${origin}/api/otel/v1/traces`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/x-protobuf" },
      body,
    });
    if (answer.status !== 200)
      throw new Error(`the OTLP receiver answered ${answer.status}: ${Buffer.from(await answer.arrayBuffer()).toString("latin1")}`);
    const bytes = Buffer.from(await answer.arrayBuffer());
    if (bytes.length > 0) throw new Error(`the OTLP receiver rejected spans: ${bytes.toString("latin1")}`);
  });
  const otlpSeconds = (performance.now() - started) / 1000;

  const [viaIngest, viaOtlp] = await Promise.all([client.summary(ingested), client.summary(received)]);
  const figures = (s: typeof viaIngest) => JSON.stringify({ runs: s.runs, unresolved: s.unresolved, units: s.units });
  if (figures(viaIngest) !== figures(viaOtlp)) throw new Error(`the two evaluations differ: ${figures(viaIngest)} vs ${figures(viaOtlp)}`);
  log(`both evaluations: ${figures(viaOtlp)}`);

  const runsPerSecond = values.runs / otlpSeconds;
  const ingestApiRunsPerSecond = values.runs / ingestSeconds;
  const result = {
    runs: values.runs,
    spans,
    spansPerSecond: Math.round(spans / otlpSeconds),
    runsPerSecond: Math.round(runsPerSecond),
    ingestApiRunsPerSecond: Math.round(ingestApiRunsPerSecond),
    ratio: Number((runsPerSecond / ingestApiRunsPerSecond).toFixed(3)),
    load: loadavg().map((l) => Number(l.toFixed(2))),
  };
  reportFigures(result, values.json, log);
  console.log(`target: ratio ≥ 0.5 (${result.ratio})`);
  await stack.shutdown(0, "done");
}

main().catch((error: unknown) => {
  log((error as Error).stack ?? String(error));
  void stack.shutdown(1, "failed");
});

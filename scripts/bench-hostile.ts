// `npm run bench:hostile -- [--json FILE]`: the hostile-input corpus (lib/testing/hostile-corpus/corpus.ts),
// timed, and how long each request held the web server's one thread (docs/accounts.md, Hardening: none may hold it
// more than 100 ms).
//
//  1. A fresh embedded PostgreSQL in a temp folder, migrated; the delayed-write service; a small
//     replay stored as an experiment; the trace library and the paper's protocols; an account per
//     role with an API key and a session.
//  2. The web server (workers/web.ts, the production build: run `npx next build` first), logging
//     every hold of its thread of HOLD_LOG_MS or more (EVENT_LOOP_STALL_MS, lib/web-server/event-loop-watch.ts).
//  3. The corpus, one request at a time; after each answer a pause of two of the watch's ticks,
//     so that a hold it caused is logged before the next request starts, and attributed to it.
//
// Every page is requested once first, unmeasured (the first request of a page loads its code).
// Prints the answers by status, every 5xx, the requests that held the thread longest, and the
// request times; writes FILE as {requests, byStatus, fiveXx, holds, overLimit, goodRuns, timesMs}.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createAccount, createApiKey } from "../lib/auth/accounts";
import { ROLES, type Role } from "../lib/auth/permissions";
import { startEmbeddedPostgres } from "../lib/db/embedded";
import { ensureMigrated } from "../lib/db/migrate";
import { createPrisma } from "../lib/db/prisma";
import { spawnDelayedWriteService } from "../lib/delayed-write/spawn";
import { replayConfigSchema } from "../lib/replay/rules/config";
import { replayExperiment } from "../lib/replay/run/run-experiment";
import { loadPaperReference } from "../lib/review/review-codes-store";
import { percentile, requireProductionBuild, startBenchWeb } from "../lib/bench/bench-web";
import { parseBenchFlags } from "../lib/bench/bench-flags";
import { hostileCorpus } from "../lib/testing/hostile-corpus/corpus";
import { sendHostile, type Caller, type HostileResult } from "../lib/testing/hostile-corpus/requests";
import { checkGoodRuns, prepareCorpusTargets } from "../lib/testing/hostile-corpus/targets";
import { orderedShutdown } from "../lib/testing/ordered-shutdown";
import { loadGroundTruthTraces } from "../lib/traces/library";
import { STALL_LINE, TICK_MS } from "../lib/web-server/event-loop-watch";

const log = (line: string) => console.error(`bench:hostile: ${line}`);
const values = parseBenchFlags("bench:hostile", {});
/** Holds logged by the web server: short enough to see what a request costs, long enough to skip timer jitter. */
const HOLD_LOG_MS = 20;
const LIMIT_MS = 100;

requireProductionBuild("bench:hostile", log);
const dataDir = mkdtempSync(path.join(tmpdir(), "bl-bench-hostile-"));
const stack = orderedShutdown({ dataDir, stopTimeoutMs: 15_000, log, signalExitCode: 130, logReasonOnSuccess: false });

async function main(): Promise<void> {
  const database = await startEmbeddedPostgres(dataDir, log);
  stack.onStop("PostgreSQL", () => database.stop());
  await ensureMigrated(database.url, log);
  const db = createPrisma(database.url);
  stack.onStop("database client", () => db.$disconnect());
  const service = await spawnDelayedWriteService();
  stack.onStop("delayed-write service", () => service.stop());
  const summary = await replayExperiment(db, replayConfigSchema.parse({ delaysMs: [0, 25], schedules: 1, repetitions: 2 }), service.url);
  await loadPaperReference(db);
  await loadGroundTruthTraces(db);
  const run = await db.run.findFirstOrThrow({ where: { experimentId: summary.experimentId }, select: { id: true } });
  const trace = await db.trace.findFirstOrThrow({ select: { id: true } });

  const holds: number[] = [];
  const { origin, auth } = await startBenchWeb({
    db,
    databaseUrl: database.url,
    dataDir,
    log,
    stack,
    env: { DELAYED_WRITE_URL: service.url, SHARE_LOOKUPS_PER_MINUTE: "1000000000", EVENT_LOOP_STALL_MS: String(HOLD_LOG_MS) },
    onLine: (line) => {
      const held = STALL_LINE.exec(line);
      if (held) holds.push(Number(held[1]));
    },
  });
  const password = "a password for the benchmark";
  const credentials = {} as Record<Role, Record<string, string>>;
  for (const role of ROLES) {
    const account = await createAccount(auth, { email: `${role}@hostile.test`, password, name: role, role });
    const { key } = await createApiKey(auth, account.id, "bench:hostile");
    const signedIn = await fetch(`${origin}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin },
      body: JSON.stringify({ email: account.email, password }),
    });
    if (signedIn.status !== 200) throw new Error(`sign-in answered ${signedIn.status}: ${await signedIn.text()}`);
    const cookie = signedIn.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    credentials[role] = { authorization: `Bearer ${key}`, cookie };
  }
  const headersOf = (as: Caller) => (as === "anonymous" ? {} : credentials[as]);
  const targets = await prepareCorpusTargets(origin, headersOf, { experimentId: summary.experimentId, runId: run.id, traceId: trace.id });
  const corpus = hostileCorpus(targets);
  // Each page once, unmeasured: the first request of a page loads its server code (a hold of ~150 ms once, whatever the input).
  const warmUp = [
    "/",
    "/evaluations",
    `/evaluations/${targets.evaluationId}`,
    `/experiments/${targets.experimentId}`,
    `/experiments/${targets.experimentId}/runs`,
    `/runs/${targets.runId}`,
    `/protocols`,
    `/protocols/${targets.protocolId}`,
    "/traces",
    `/traces/${targets.traceId}`,
    "/s/unknown",
  ];
  for (const page of warmUp) await (await fetch(`${origin}${page}`, { headers: headersOf("viewer"), redirect: "manual" })).arrayBuffer();
  await new Promise((resolve) => setTimeout(resolve, 2 * TICK_MS + 5));
  const coldHolds = holds.splice(0);
  log(`${corpus.length} requests (after ${warmUp.length} pages warmed up; their holds: ${coldHolds.join(", ") || "none"} ms)`);

  const results: (HostileResult & { heldMs: number })[] = [];
  for (const [i, request] of corpus.entries()) {
    const before = holds.length;
    const result = await sendHostile(origin, request, headersOf);
    await new Promise((resolve) => setTimeout(resolve, 2 * TICK_MS + 5));
    results.push({ ...result, heldMs: Math.max(0, ...holds.slice(before)) });
    if ((i + 1) % 500 === 0) log(`${i + 1} of ${corpus.length}`);
  }

  const byStatus: Record<string, number> = {};
  for (const r of results) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
  const fiveXx = results.filter((r) => r.status >= 500 || r.status === 0).map((r) => `${r.status} ${r.request.name}`);
  const longest = [...results].sort((a, b) => b.heldMs - a.heldMs).slice(0, 10);
  const overLimit = results.filter((r) => r.heldMs > LIMIT_MS).map((r) => `${r.heldMs} ms ${r.request.name}`);
  const goodRuns = await checkGoodRuns(origin, headersOf, targets.evaluationId, results);
  const missingAnswers = results
    .filter((r) => r.request.goodRun && goodRuns.missing.includes(r.request.goodRun))
    .map((r) => `${r.status} ${r.request.name}: ${r.answer}`);
  const times = results.map((r) => r.ms);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  const timesMs = { p50: round(percentile(times, 50)), p99: round(percentile(times, 99)), max: round(Math.max(...times)) };
  const mixed = results.filter((r) => r.request.goodRun).length;
  console.log(
    [
      `${results.length} requests; answers by status: ${Object.entries(byStatus)
        .map(([s, n]) => `${s}: ${n}`)
        .join(", ")}`,
      `5xx or dropped: ${fiveXx.length}${
        fiveXx.length
          ? `\n  ${results
              .filter((r) => r.status >= 500 || r.status === 0)
              .map((r) => `${r.status} ${r.request.name}: ${r.answer.slice(0, 120)}`)
              .join("\n  ")}`
          : ""
      }`,
      `good runs of ${mixed} mixed ingest batches stored: ${mixed - goodRuns.missing.length}${goodRuns.missing.length ? ` (missing: ${goodRuns.missing.join(", ")})\n  ${missingAnswers.join("\n  ")}` : ""}; runs stored that none meant to store: ${goodRuns.unexpected.length}`,
      `thread holds of ${HOLD_LOG_MS} ms or more: ${results.filter((r) => r.heldMs > 0).length} requests; over ${LIMIT_MS} ms: ${overLimit.length}${overLimit.length ? `\n  ${overLimit.join("\n  ")}` : ""}`,
      `longest holds:\n${longest.map((r) => `  ${r.heldMs} ms (answered ${r.status} in ${round(r.ms)} ms) ${r.request.name.slice(0, 160)}`).join("\n")}`,
      `request times: p50 ${timesMs.p50} ms, p99 ${timesMs.p99} ms, max ${timesMs.max} ms`,
    ].join("\n"),
  );
  if (values.json) {
    const holdsOf = results
      .filter((r) => r.heldMs > 0)
      .map((r) => ({ request: r.request.name, status: r.status, heldMs: r.heldMs, ms: round(r.ms) }));
    writeFileSync(
      values.json,
      `${JSON.stringify({ requests: results.length, byStatus, fiveXx, holds: holdsOf, overLimit, goodRuns, timesMs }, null, 2)}\n`,
    );
    log(`wrote ${values.json}`);
  }
  await stack.shutdown(0, "done");
}

main().catch((error: unknown) => {
  log((error as Error).stack ?? String(error));
  void stack.shutdown(1, "failed");
});

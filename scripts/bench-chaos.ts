// `npm run bench:chaos -- --json FILE [--rounds 10] [--seed N]` (after `npx next build`): reliability
// under faults. A benchmark, not a test: it prints what it measured and asserts nothing.
//
// One supervised stack (`npm start`'s workers/start.ts, REPLAY_WORKERS=2, its own delayed-write
// service and web app) runs against an embedded PostgreSQL that this script runs in a process of
// its own, so that it can restart it. Each round creates the paper's grid (the default config)
// through the use case the API uses (createQueuedExperiment) and, once a random share of its runs
// (seeded, 10-90%) is stored, injects one fault, cycling through: SIGKILL a replay worker (chosen at
// random), SIGKILL the delayed-write service (the supervisor brings both back), restart PostgreSQL
// (this script stops it and starts it again on the same port). Per round:
//   atMs         from the enqueue to the fault;
//   recoveredMs  from the fault to the part answering again: the new worker's heartbeat row in
//                replay_workers, the service's /healthz, a SELECT 1;
//   state        the experiment's final state (completed: every implementation check passed);
//   Table 2      exact when the stored runs' summary equals expectedTable2(grid) (= the paper's);
//   lost         expected runs minus distinct stored natural keys (condition, schedule, delay,
//                repetition, role), for a completed round;
//   duplicate    stored runs beyond one per natural key;
//   env. failures  runs stored as environment failures; voided attempts (retried, kept as evidence).
// Between rounds it waits until every child runs and the queue is empty.
//
// Then `--recompute-rounds N` (default 2) rounds of a killed policy recompute: an
// evaluation of 200,000 synthetic runs (ingested in process), a new effect-policy version saved, and
// once a random share (25-75%) of its runs is computed, every replay worker SIGKILLed (the job's
// holder among them). Per round: the share computed at the kill, the time from the kill to the version
// applied (the supervisor restarts the workers, the heartbeat frees the dead one's job, a new one goes
// on from the last chunk committed), whether every run's finality then equals the rule applied in
// JavaScript (lib/testing/finality-reference.ts), and the chunks' results left behind (none expected);
// then the target, printed (never asserted): the version applied within 20 s of the kill. A round
// whose wait runs out (10 minutes for the share to kill at, or for the apply after the kill) says which,
// how long it waited and where its recompute stood (runs computed, chunks, its job, a statement running:
// lib/bench/chaos-recompute.ts), and is the last recompute round.
import { randomInt } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { isDeepStrictEqual, parseArgs } from "node:util";
import pg from "pg";
import { z } from "zod";
import { spawnEmbeddedPostgres, type EmbeddedProcess } from "../lib/db/embedded-process";
import { freePort } from "../lib/db/free-port";
import { createPrisma, type Db } from "../lib/db/prisma";
import { createEvaluation } from "../lib/evaluations/manage/create-evaluation";
import { ingestRuns } from "../lib/evaluations/ingest/ingest-runs";
import { setEffectPolicy } from "../lib/evaluations/policy-recompute/set-effect-policy";
import { createQueuedExperiment } from "../lib/experiments/create-experiment";
import { runnableJobCount } from "../lib/jobs/queue";
import { replayConfigSchema } from "../lib/replay/rules/config";
import { table2Mismatches } from "../lib/replay/rules/expected-table2";
import { expectedRunCount } from "../lib/replay/rules/grid";
import { HARNESS_LATE } from "../lib/replay/run/run-grid";
import { experimentSummary } from "../lib/replay/store/summary";
import { SERVICE_NAME, replayWorkerName } from "../lib/supervisor/stack-children";
import { requireProductionBuild } from "../lib/bench/bench-web";
import { chaosReport, faultKindOf, faultProgressOf, formatChaosTable, type FaultKind, type RoundResult } from "../lib/bench/chaos-report";
import {
  APPLIED_AFTER_KILL_TARGET_MS,
  formatRecomputeRounds,
  recomputeState,
  recomputeWaitMessage,
  type RecomputeRound,
} from "../lib/bench/chaos-recompute";
import { finalityReference } from "../lib/testing/finality-reference";
import { storedFinality } from "../lib/testing/random-runs";
import { seededRandom } from "../lib/testing/seeded-random";
import { POLICY, syntheticRun } from "../lib/testing/synthetic-evaluation-runs";
import { startSupervisedStack, type SupervisedStack } from "../lib/testing/supervised-stack";

const flags = z
  .object({
    json: z.string().min(1).optional(),
    rounds: z.coerce.number().int().min(1).max(1_000).default(10),
    "recompute-rounds": z.coerce.number().int().min(0).max(100).default(2),
    seed: z.coerce
      .number()
      .int()
      .min(0)
      .max(2 ** 32 - 1)
      .default(() => randomInt(2 ** 32 - 1)),
  })
  .parse(
    parseArgs({
      options: { json: { type: "string" }, rounds: { type: "string" }, "recompute-rounds": { type: "string" }, seed: { type: "string" } },
      strict: true,
    }).values,
  );

const WORKERS = 2;
const STACK_READY_TIMEOUT_MS = 180_000;
const FAULT_TIMEOUT_MS = 5 * 60_000;
const RECOVERY_TIMEOUT_MS = 120_000;
const GRID_TIMEOUT_MS = 10 * 60_000;
const QUEUE_DRAIN_TIMEOUT_MS = 60_000;

const log = (line: string) => console.error(`bench:chaos: ${line}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const random = seededRandom(flags.seed);

/** Polls `probe` (errors count as "not yet": PostgreSQL may be restarting) until it returns a value; null after the timeout. */
async function until<T>(probe: () => Promise<T | null>, timeoutMs: number, pollMs: number): Promise<T | null> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const value = await probe().catch(() => null);
    if (value !== null) return value;
    await sleep(pollMs);
  }
  return null;
}

async function selectOne(url: string): Promise<true> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SELECT 1");
    return true;
  } finally {
    await client.end();
  }
}

requireProductionBuild("bench:chaos", log);
const dataDir = mkdtempSync(path.join(tmpdir(), "bl-chaos-"));
// The embedded PostgreSQL runs as the postgres user, which must be able to enter the folder.
chmodSync(dataDir, 0o755);
const postgresDir = path.join(dataDir, "postgres");
let postgres: EmbeddedProcess | null = null;
let stack: SupervisedStack | null = null;

async function cleanUp(): Promise<void> {
  const stopped = await stack?.stop();
  if (stopped && (stopped.code !== 0 || stopped.signal))
    log(`the supervised stack exited with ${stopped.signal ?? `code ${stopped.code}`}`);
  await postgres?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping`);
    void cleanUp().finally(() => process.exit(130));
  });
}

/** Injects the round's fault and waits for the part to answer again; returns what was hit and the recovery time. */
async function injectFault(kind: FaultKind, db: { current: Db }): Promise<{ target: string; recoveredMs: number | null }> {
  const faultAt = performance.now();
  const since = () => performance.now() - faultAt;
  if (kind === "kill-worker") {
    const target = replayWorkerName(1 + Math.floor(random() * WORKERS));
    const killed = stack!.child(target).pid!;
    process.kill(killed, "SIGKILL");
    const back = await until(
      async () => {
        const child = stack!.child(target);
        if (child.state !== "running" || child.pid === killed) return null;
        const [row] = await db.current.$queryRaw<
          Array<{ n: number }>
        >`SELECT count(*)::int AS n FROM replay_workers WHERE pid = ${child.pid}::int AND heartbeat_at > now() - interval '2 seconds'`;
        return row!.n > 0 ? since() : null;
      },
      RECOVERY_TIMEOUT_MS,
      20,
    );
    return { target, recoveredMs: back };
  }
  if (kind === "kill-service") {
    const serviceUrl = stack!.status().delayedWriteUrl;
    process.kill(stack!.child(SERVICE_NAME).pid!, "SIGKILL");
    const back = await until(async () => ((await fetch(`${serviceUrl}/healthz`)).ok ? since() : null), RECOVERY_TIMEOUT_MS, 20);
    return { target: SERVICE_NAME, recoveredMs: back };
  }
  // The script's own connections would break with the server: the client is replaced around the restart.
  const port = Number(new URL(postgres!.url).port);
  await db.current.$disconnect();
  await postgres!.stop();
  postgres = await spawnEmbeddedPostgres(postgresDir, { port, log });
  db.current = createPrisma(postgres.url, 4);
  const back = await until(async () => (await selectOne(postgres!.url)) && since(), RECOVERY_TIMEOUT_MS, 20);
  return { target: "PostgreSQL", recoveredMs: back };
}

async function runRound(round: number): Promise<RoundResult> {
  const kind = faultKindOf(round);
  const share = faultProgressOf(random());
  const grid = replayConfigSchema.parse({});
  const expectedRuns = expectedRunCount(grid);
  const db = { current: createPrisma(postgres!.url, 4) };
  try {
    const enqueuedAt = performance.now();
    const experimentId = await createQueuedExperiment(db.current, grid);
    const reached = await until(
      async () => ((await db.current.run.count({ where: { experimentId } })) >= share * expectedRuns ? true : null),
      FAULT_TIMEOUT_MS,
      50,
    );
    if (!reached)
      throw new Error(`round ${round}: ${Math.round(share * 100)}% of the runs were not stored within ${FAULT_TIMEOUT_MS / 1000} s`);
    const atMs = performance.now() - enqueuedAt;
    log(`round ${round}: ${kind} at ${Math.round(atMs)} ms (${Math.round(share * 100)}% of the grid stored)`);
    const { target, recoveredMs } = await injectFault(kind, db);
    log(`round ${round}: ${target} answering again ${recoveredMs === null ? "never" : `after ${Math.round(recoveredMs)} ms`}`);

    const final = await until(
      async () => {
        const row = await db.current.experiment.findUniqueOrThrow({
          where: { id: experimentId },
          select: { state: true, finishedAt: true },
        });
        return row.state === "completed" || row.state === "failed" ? row : null;
      },
      GRID_TIMEOUT_MS,
      250,
    );
    const wallMs = performance.now() - enqueuedAt;
    const summary = await experimentSummary(db.current, experimentId);
    const mismatches = table2Mismatches(summary, grid);
    const [counts] = await db.current.$queryRaw<Array<{ stored: number; keys: number; service: number; late: number }>>`
      SELECT (SELECT count(*)::int FROM runs WHERE experiment_id = ${experimentId}::uuid) AS stored,
             (SELECT count(DISTINCT (condition, schedule_id, delay_ms, repetition, role))::int FROM runs WHERE experiment_id = ${experimentId}::uuid) AS keys,
             count(*) FILTER (WHERE f->>'detail' NOT LIKE ${`${HARNESS_LATE}%`})::int AS service,
             count(*) FILTER (WHERE f->>'detail' LIKE ${`${HARNESS_LATE}%`})::int AS late
        FROM runs r, jsonb_array_elements(r.evidence->'serviceFailures') f
       WHERE r.experiment_id = ${experimentId}::uuid AND r.role <> 'B'`;
    // Why units ran out of retries, for the investigation of a round that missed its target.
    const failedUnits = await db.current.$queryRaw<Array<{ condition: string; delay_ms: number; attempts: number; last: string }>>`
      SELECT condition, delay_ms, jsonb_array_length(evidence->'serviceFailures') AS attempts, evidence->'serviceFailures'->-1->>'detail' AS last
        FROM runs WHERE experiment_id = ${experimentId}::uuid AND role <> 'B' AND classification = 'environment_failure'`;
    for (const unit of failedUnits)
      log(
        `round ${round}: environment failure: ${unit.condition} at ${unit.delay_ms} ms after ${unit.attempts} voided attempts, the last: ${unit.last.slice(0, 240)}`,
      );
    return {
      round,
      kind,
      target,
      atMs,
      recoveredMs,
      state: final?.state ?? "unfinished",
      table2Exact: mismatches.length === 0,
      mismatches,
      expectedRuns,
      storedRuns: counts!.stored,
      distinctKeys: counts!.keys,
      environmentFailures: summary.classifications.environment_failure,
      voidedServiceAttempts: counts!.service,
      voidedLateAttempts: counts!.late,
      failedChecks: summary.checks.filter((c) => !c.passed).map((c) => c.name),
      wallMs,
    };
  } finally {
    await db.current.$disconnect();
  }
}

const RECOMPUTE_RUNS = 200_000;
const RECOMPUTE_TIMEOUT_MS = 10 * 60_000;

/** One killed recompute: the evaluation ingested, a version saved, the workers killed mid-way, the outcome checked. */
async function runRecomputeRound(round: number): Promise<RecomputeRound> {
  const db = createPrisma(postgres!.url, 4);
  try {
    const id = await createEvaluation(db, { name: `chaos recompute ${round}`, effectPolicy: POLICY }, null);
    for (let from = 0; from < RECOMPUTE_RUNS; from += 1_000)
      await ingestRuns(
        db,
        id,
        Array.from({ length: 1_000 }, (_, k) => syntheticRun(from + k)),
      );
    // The runs' traces recorded first (their record_traces jobs): the fault is the recompute's alone.
    await until(async () => ((await runnableJobCount(db)) === 0 ? true : null), RECOMPUTE_TIMEOUT_MS, 250);
    const policy = { tools: { ...POLICY.tools, "files.write": "external" as const } };
    const { version } = await setEffectPolicy(db, id, policy, null);
    const savedAt = performance.now();
    const share = 0.25 + random() * 0.5;
    const progress = () =>
      db.evaluationPolicyRecompute.findUniqueOrThrow({ where: { evaluationId_version: { evaluationId: id, version } } });
    const reached = await until(
      async () => {
        const row = await progress();
        return row.appliedAt !== null || row.runsDone >= share * row.runsTotal ? row : null;
      },
      RECOMPUTE_TIMEOUT_MS,
      20,
    );
    const notKilled = {
      runs: RECOMPUTE_RUNS,
      killedWorkers: 0,
      killedAtRunsDone: null,
      appliedAfterKillMs: null,
      equalsRule: null,
      leftoverResults: 0,
    };
    if (!reached || reached.appliedAt !== null) {
      const state = await recomputeState(db, id, version);
      const wait = { kind: "kill", sharePercent: Math.round(share * 100) } as const;
      return {
        ...notKilled,
        round,
        runsTotal: state.runsTotal,
        stalled: recomputeWaitMessage(round, wait, performance.now() - savedAt, state),
      };
    }
    const killedAt = performance.now();
    for (let i = 1; i <= WORKERS; i++) process.kill(stack!.child(replayWorkerName(i)).pid!, "SIGKILL");
    log(`recompute round ${round}: every replay worker killed at ${reached.runsDone}/${reached.runsTotal} runs computed`);
    const killed = { ...notKilled, round, runsTotal: reached.runsTotal, killedWorkers: WORKERS, killedAtRunsDone: reached.runsDone };
    const applied = await until(
      async () => ((await progress()).appliedAt ? performance.now() - killedAt : null),
      RECOMPUTE_TIMEOUT_MS,
      100,
    );
    if (applied === null) {
      const state = await recomputeState(db, id, version);
      return { ...killed, stalled: recomputeWaitMessage(round, { kind: "apply" }, performance.now() - killedAt, state) };
    }
    // The job goes on after the apply (the results dropped, the traces moved): wait for it to finish.
    await until(async () => ((await runnableJobCount(db)) === 0 ? true : null), RECOMPUTE_TIMEOUT_MS, 250);
    return {
      ...killed,
      appliedAfterKillMs: Math.round(applied),
      stalled: null,
      equalsRule: isDeepStrictEqual(await storedFinality(db, id), await finalityReference(db, id, policy)),
      leftoverResults: await db.evaluationRecomputedFinality.count({ where: { evaluationId: id } }),
    };
  } finally {
    await db.$disconnect();
  }
}

/** Every child running and no job left to run (a duplicate finalize job of the last round, say): the next round starts clean. */
async function settle(): Promise<void> {
  const running = await until(
    async () => (stack!.status().children.every((c) => c.state === "running") ? true : null),
    RECOVERY_TIMEOUT_MS,
    100,
  );
  if (!running) throw new Error(`the stack's children are not all running: ${JSON.stringify(stack!.status().children)}`);
  const db = createPrisma(postgres!.url, 1);
  try {
    const drained = await until(async () => ((await runnableJobCount(db)) === 0 ? true : null), QUEUE_DRAIN_TIMEOUT_MS, 250);
    if (!drained) log("WARNING: jobs still queued after the round; the next round's workers run them too");
  } finally {
    await db.$disconnect();
  }
}

try {
  log(`seed ${flags.seed}, ${flags.rounds} rounds, ${WORKERS} replay workers`);
  postgres = await spawnEmbeddedPostgres(postgresDir, { log });
  stack = await startSupervisedStack({
    dataDir,
    port: await freePort(),
    env: { DATABASE_URL: postgres.url, REPLAY_WORKERS: String(WORKERS) },
    readyTimeoutMs: STACK_READY_TIMEOUT_MS,
    print: (line) => console.error(`[stack] ${line}`),
  });
  const loadBefore = loadavg()[0]!;
  const benchStart = performance.now();
  const results: RoundResult[] = [];
  for (let round = 1; round <= flags.rounds; round++) {
    await settle();
    const result = await runRound(round);
    log(`round ${round}: ${result.state}, Table 2 ${result.table2Exact ? "exact" : "NOT exact"}, ${(result.wallMs / 1000).toFixed(1)} s`);
    results.push(result);
  }
  const recomputes: RecomputeRound[] = [];
  for (let round = 1; round <= flags["recompute-rounds"]; round++) {
    await settle();
    const result = await runRecomputeRound(round);
    recomputes.push(result);
    if (result.stalled) {
      // Its job may still hold a worker and the database: the rounds after it would not measure a recompute alone.
      log(`${result.stalled}; no further recompute round`);
      break;
    }
    log(
      `recompute round ${round}: applied ${result.appliedAfterKillMs} ms after the kill, ` +
        `every run ${result.equalsRule ? "equal to" : "NOT equal to"} the rule, ${result.leftoverResults} results left`,
    );
  }
  const report = { seed: flags.seed, ...chaosReport(results), recomputes, appliedAfterKillTargetMs: APPLIED_AFTER_KILL_TARGET_MS };
  console.log(
    `bench:chaos, seed ${flags.seed}: the paper grid (${expectedRunCount(replayConfigSchema.parse({}))} runs) per round through ${WORKERS} supervised replay workers, one fault a round`,
  );
  console.log(formatChaosTable(report));
  if (recomputes.length > 0) {
    console.log(`\nA policy recompute of ${RECOMPUTE_RUNS.toLocaleString("en-US")} runs, every replay worker SIGKILLed mid-way:`);
    console.log(formatRecomputeRounds(recomputes));
  }
  console.log(
    `bench wall time ${((performance.now() - benchStart) / 1000).toFixed(1)} s; 1-min load average ${loadBefore.toFixed(2)} before the rounds, ${loadavg()[0]!.toFixed(2)} at the end (${availableParallelism()} cores)`,
  );
  if (flags.json) writeFileSync(flags.json, `${JSON.stringify(report, null, 2)}\n`);
} catch (error) {
  log(`failed: ${(error as Error).stack ?? String(error)}`);
  process.exitCode = 1;
} finally {
  await cleanUp();
}

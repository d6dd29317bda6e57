import { readFileSync } from "node:fs";
import { Logger, runOnce } from "graphile-worker";
import { describe, expect, it } from "vitest";
import { poolOf, type Db } from "../../db/prisma";
import { sqlTransaction } from "../../db/sql-transaction";
import { createEvaluation } from "../manage/create-evaluation";
import { ingestRuns } from "../ingest/ingest-runs";
import type { EffectPolicy } from "../effect-policy-schema";
import { setEffectPolicy } from "../policy-recompute/set-effect-policy";
import { applyPendingPolicy } from "../policy-recompute/recompute";
import { recordTracesJob, recordTracesJobKey } from "./job";
import { runnableJobCount } from "../../jobs/queue";
import { at } from "../../testing/evaluation-example";
import { useTestDatabase } from "../../testing/use-test-database";
import { recordTracesTask } from "../../worker/tasks";
import { recordImportedTraces, recordImportedTracesInTransaction } from "./record-traces";
import { DomainError } from "../../errors";
import { listTraces, loadGroundTruthTraces, resolveTraceSelection } from "../../traces/library";

// The trace library kept in step with the runs, on a real PostgreSQL: runs ingested through the API
// get their traces from a record_traces job; a pass that loses a sequence to a concurrent one still
// links its runs; a policy change moves only the runs whose trace marks writes otherwise; and the
// migration that made write marks part of a trace's identity rehashes old traces as the code hashes.
let db: Db;
let url: string;
useTestDatabase((database) => ({ db, url } = database));

const POLICY: EffectPolicy = { tools: { send_money: "sync_confirmed", read_balance: "read_only" } };
const run = (externalId: string, calls: Array<[string, Record<string, unknown>]>) => ({
  externalId,
  taskId: `bank/${externalId}`,
  startedAt: at(0),
  scoredAt: at(5),
  endpointLabel: "success",
  toolCalls: calls.map(([tool, args]) => ({ tool, arguments: args })),
});

/** Each run's trace id, by external id. */
async function links(evaluationId: string): Promise<Record<string, string | null>> {
  const runs = await db.evaluationRun.findMany({
    where: { evaluationId },
    select: { externalId: true, traceLink: { select: { traceId: true } } },
  });
  return Object.fromEntries(runs.map((r) => [r.externalId, r.traceLink?.traceId ?? null]));
}

const importedTraces = () => db.trace.findMany({ where: { source: "imported" }, orderBy: { id: "asc" } });

async function until(done: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe("imported traces kept in step with runs and policies", () => {
  it("gives runs ingested through the API their traces by one record_traces job per evaluation", async () => {
    const id = await createEvaluation(db, { name: "ingested", effectPolicy: POLICY }, null);
    await ingestRuns(db, id, [
      run("i1", [
        ["read_balance", {}],
        ["send_money", { amount: 1 }],
      ]),
      run("i2", [["read_balance", {}]]),
    ]);
    await ingestRuns(db, id, [run("i3", [["send_money", { amount: 3 }]])]);
    // The second batch's job merged into the first's, still waiting.
    expect(await runnableJobCount(db, [recordTracesJobKey(id)])).toBe(1);
    expect(Object.values(await links(id))).toEqual([null, null, null]);

    await runOnce({
      connectionString: url,
      taskList: { [recordTracesJob.name]: recordTracesTask(db, () => {}) },
      logger: new Logger(() => () => {}),
    });
    expect(Object.values(await links(id)).every((trace) => trace !== null)).toBe(true);
    expect(await runnableJobCount(db, [recordTracesJobKey(id)])).toBe(0);
    const i1 = await db.trace.findUniqueOrThrow({ where: { id: (await links(id)).i1! } });
    expect(i1).toMatchObject({ source: "imported", suite: "ingested", task: "bank/i1", callCount: 2, stateChangingCount: 1 });

    // A batch found unchanged has nothing to record, and enqueues nothing.
    await ingestRuns(db, id, [run("i3", [["send_money", { amount: 3 }]])]);
    expect(await runnableJobCount(db, [recordTracesJobKey(id)])).toBe(0);
  });

  it("links every run of a pass that lost its sequences to a concurrent pass", async () => {
    const runs = [run("c1", [["read_balance", { account: "c" }]]), run("c2", [["send_money", { amount: 2, to: "c" }]])];
    const first = await createEvaluation(db, { name: "concurrent A", effectPolicy: POLICY }, null);
    const second = await createEvaluation(db, { name: "concurrent B", effectPolicy: POLICY }, null);
    await ingestRuns(db, first, runs, { traces: "caller" });
    await ingestRuns(db, second, runs, { traces: "caller" });

    // A's pass inserts the two traces and holds its transaction open; B's pass starts, and its
    // inserts wait for A's transaction, which commits only then: B's statement cannot see them.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let firstLinked = 0;
    const holding = sqlTransaction(poolOf(db), async (tx) => {
      firstLinked = await recordImportedTracesInTransaction(tx, first);
      await gate;
    });
    await until(() => firstLinked > 0);
    const linkingSecond = recordImportedTraces(db, second);
    await until(async () => {
      const [{ waiting }] = await db.$queryRaw<[{ waiting: number }]>`
        SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'transactionid'`;
      return waiting > 0;
    });
    release();
    await holding;

    expect(firstLinked).toBe(2);
    expect(await linkingSecond).toBe(2);
    expect(await links(second)).toEqual(await links(first));
  });

  it("keeps a re-sent run's link while its calls are the same, makes a new unlinked one when they change, and drops it when they are gone", async () => {
    const id = await createEvaluation(db, { name: "re-sent", effectPolicy: POLICY }, null);
    const same = run("r1", [["send_money", { amount: 1 }]]);
    const changing = run("r2", [["send_money", { amount: 2 }]]);
    const emptied = run("r3", [["read_balance", {}]]);
    await ingestRuns(db, id, [same, changing, emptied], { traces: "caller" });
    expect(await recordImportedTraces(db, id)).toBe(3);
    const before = await links(id);
    const linkRows = () =>
      db.evaluationRunTrace.findMany({
        where: { evaluationId: id },
        select: { run: { select: { externalId: true } } },
        orderBy: { runId: "asc" },
      });
    expect((await linkRows()).map((l) => l.run.externalId)).toEqual(["r1", "r2", "r3"]);

    // All three re-sent with other content: r1 a new score only, r2 another amount, r3 without calls.
    await ingestRuns(
      db,
      id,
      [{ ...same, score: 0.9 }, run("r2", [["send_money", { amount: 20 }]]), { ...run("r3", []), toolCalls: undefined }],
      {
        traces: "caller",
      },
    );
    expect(await links(id)).toEqual({ r1: before.r1, r2: null, r3: null });
    expect((await linkRows()).map((l) => l.run.externalId)).toEqual(["r1", "r2"]);
    expect(await recordImportedTraces(db, id)).toBe(1);
    const after = await links(id);
    expect(after.r1).toBe(before.r1);
    expect(after.r2).not.toBeNull();
    expect(after.r2).not.toBe(before.r2);
  });

  it("has a migration that rehashes existing imported traces as the trace step hashes them", async () => {
    const hashes = async () => (await importedTraces()).map((t) => [t.id, t.contentHash]);
    const current = await hashes();
    expect(current.length).toBeGreaterThan(0);
    // The hash before write marks were part of it: the ordered (function, arguments) pairs.
    await db.$executeRaw`
      UPDATE traces SET content_hash = encode(sha256(convert_to(
        (SELECT jsonb_agg(jsonb_build_array(c->'function', c->'args') ORDER BY i) FROM jsonb_array_elements(calls) WITH ORDINALITY AS x(c, i))::text, 'UTF8')), 'hex')
       WHERE source = 'imported'`;
    expect(await hashes()).not.toEqual(current);
    const migration = readFileSync("prisma/migrations/20261202060000_imported_trace_write_marks/migration.sql", "utf8");
    const rehash = migration.match(/^UPDATE "traces" .*;$/m)![0];
    await db.$executeRawUnsafe(rehash);
    expect(await hashes()).toEqual(current);
  });

  it("moves, on a policy change, only the runs whose trace marks writes otherwise, and never changes a trace", async () => {
    const runs = [
      run("p1", [
        ["read_balance", { account: "p" }],
        ["send_money", { amount: 5 }],
      ]),
      run("p2", [["read_balance", { account: "p" }]]),
      run("p3", [
        ["update_password", { password: "hunter2" }],
        ["read_balance", { account: "p" }],
      ]),
    ];
    const first = await createEvaluation(db, { name: "policy A", effectPolicy: POLICY }, null);
    const second = await createEvaluation(db, { name: "policy B", effectPolicy: POLICY }, null);
    for (const id of [first, second]) {
      await ingestRuns(db, id, runs, { traces: "caller" });
      await recordImportedTraces(db, id);
    }
    const before = await links(first);
    // One policy, one sequence: one trace, shared.
    expect(await links(second)).toEqual(before);
    const tracesBefore = await importedTraces();

    // update_password, unclassified (so marked as a call that may write), becomes read-only: only p3's trace disagrees, and p3 of A alone moves.
    const readsPassword: EffectPolicy = { tools: { ...POLICY.tools, update_password: "read_only" } };
    await setEffectPolicy(db, first, readsPassword, null);
    await applyPendingPolicy(db, first);
    const after = await links(first);
    expect(after).toMatchObject({ p1: before.p1, p2: before.p2 });
    expect(after.p3).not.toBe(before.p3);
    expect(await links(second)).toEqual(before);
    const moved = await db.trace.findUniqueOrThrow({ where: { id: after.p3! } });
    expect(moved).toMatchObject({ task: "bank/p3", stateChangingCount: 0 });
    expect((moved.calls as Array<{ function: string; stateChanging: boolean }>).map((c) => [c.function, c.stateChanging])).toEqual([
      ["update_password", false],
      ["read_balance", false],
    ]);
    // The traces made before are as they were (an experiment may have replayed them); one was added.
    const tracesAfter = await importedTraces();
    expect(tracesAfter.filter((t) => t.id !== moved.id)).toEqual(tracesBefore);
    expect(tracesAfter).toHaveLength(tracesBefore.length + 1);

    // B under the same policy: its p3 joins the trace A's p3 made, rather than a second one.
    await setEffectPolicy(db, second, readsPassword, null);
    await applyPendingPolicy(db, second);
    expect(await links(second)).toEqual(after);
    // A back under its first policy: its p3 returns to its first trace.
    await setEffectPolicy(db, first, POLICY, null);
    await applyPendingPolicy(db, first);
    expect(await links(first)).toEqual(before);
    expect(await importedTraces()).toEqual(tracesAfter);
  });

  it("files runs with AgentDojo's task ids under their suite whatever the benchmark says, counts them on the ground truth, and refuses to replay a trace that only reads", async () => {
    await loadGroundTruthTraces(db);
    const mixed = await createEvaluation(db, { name: "mixed suites", benchmark: "AgentDojo (mixed suites)", effectPolicy: POLICY }, null);
    await ingestRuns(db, mixed, [
      { ...run("m1", [["send_money", { amount: 7 }]]), taskId: "banking/user_task_1" },
      { ...run("m2", [["read_balance", { account: "m" }]]), taskId: "banking/user_task_1/important_instructions/injection_task_2" },
      { ...run("m3", [["read_balance", { account: "z" }]]), taskId: "checkout-3" },
    ]);
    await recordImportedTraces(db, mixed);
    const mine = await db.evaluationRun.findMany({
      where: { evaluationId: mixed },
      select: { externalId: true, traceLink: { select: { trace: { select: { suite: true, task: true } } } } },
    });
    expect(Object.fromEntries(mine.map((r) => [r.externalId, r.traceLink?.trace]))).toEqual({
      m1: { suite: "banking", task: "user_task_1" },
      m2: { suite: "banking", task: "user_task_1" },
      m3: { suite: "AgentDojo (mixed suites)", task: "checkout-3" },
    });
    // The ground-truth trace of banking/user_task_1 counts both runs of that task, the attacked one too.
    const groundTruth = (await listTraces(db, { source: "ground_truth", task: "banking/user_task_1", limit: 1 })).traces[0]!;
    expect(groundTruth.linkedRuns).toBe(2);
    // m3 only read: its trace has no call to replay as a write.
    const readOnly = await db.evaluationRun.findFirstOrThrow({
      where: { evaluationId: mixed, externalId: "m3" },
      select: { traceLink: { select: { traceId: true } } },
    });
    const refused = await resolveTraceSelection(db, { ids: [readOnly.traceLink!.traceId!] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ kind: "invalid", field: "traceSelection.ids" });
  });
});

import { createHash } from "node:crypto";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Db } from "../../db/prisma";
import { ingestRuns } from "../ingest/ingest-runs";
import { importLogs } from "../../importers/import-logs";
import { useTestDatabase } from "../../testing/use-test-database";
import { AGENTDOJO_RUNS, HAND_MADE, INSPECT_LOGS, importLogFile } from "../../testing/importer-fixtures";
import { recordImportedTraces, UnlinkedRunsError } from "./record-traces";
import { getTrace, listTraces, loadGroundTruthTraces, resolveTraceSelection } from "../../traces/library";

// Imported runs' call sequences in the trace library, on a real PostgreSQL: every fixture imported,
// one trace per distinct sequence linked to the runs that made it, and importing again changes nothing.
let db: Db;
useTestDatabase((database) => (db = database.db));

const BANKING_0 = path.join(AGENTDOJO_RUNS, "runs__gpt-4o-2024-05-13__banking__user_task_0__none__none.json");

/** Every imported trace and every run's link, as JSON: two equal answers are the same library. */
async function library() {
  return db.$queryRaw`
    SELECT (SELECT json_agg(t ORDER BY t.content_hash) FROM traces t WHERE source = 'imported') AS traces,
           (SELECT json_agg(json_build_array(r.external_id, r.evaluation_id, l.trace_id) ORDER BY r.external_id, r.evaluation_id)
              FROM evaluation_runs r LEFT JOIN evaluation_run_traces l ON l.run_id = r.id) AS links`;
}

const imported = async () => (await listTraces(db, { source: "imported", limit: 100 })).traces;

describe("imported traces", () => {
  it("records one trace per run with tool calls, with the suite, task and state-changing calls of its evaluation", async () => {
    await loadGroundTruthTraces(db);
    const report = await importLogs(db, [AGENTDOJO_RUNS, INSPECT_LOGS, HAND_MADE]);
    expect(report.failed).toEqual([]);
    // 58 runs (the Zstandard log's without calls), 37 of them with tool calls (read from the fixtures): 11 with sequences of
    // their own, and Inspect 0.3.260's 26 ledger runs, whose 6 samples call the same sequence in every epoch and in both logs.
    expect(await db.evaluationRun.count()).toBe(58);
    expect(await db.evaluationRunTrace.count({ where: { traceId: { not: null } } })).toBe(37);
    // Runs without calls have no link to set.
    expect(await db.evaluationRunTrace.count()).toBe(37);
    const traces = await imported();
    expect(traces).toHaveLength(17);
    expect(traces.every((t) => t.source === "imported" && /^[0-9a-f]{64}$/.test(t.contentHash!))).toBe(true);
    expect(traces.filter((t) => t.suite !== "ledger").every((t) => t.linkedRuns === 1)).toBe(true);
    expect(
      traces
        .filter((t) => t.suite === "ledger")
        .map((t) => t.linkedRuns)
        .sort(),
    ).toEqual([4, 4, 4, 4, 5, 5]);
    // A pass hashes each run's calls itself: the same hash as the one definition, imported_trace_hash, of the trace's calls.
    const [{ differing }] = await db.$queryRaw<[{ differing: bigint }]>`
      SELECT count(*) AS differing FROM traces WHERE source = 'imported' AND content_hash IS DISTINCT FROM imported_trace_hash(calls)`;
    expect(differing).toBe(0n);
    // The hash is the SHA-256 of the triples' JSON text, as before call_sequence_hash held it (stored hashes stay valid).
    const [hashes] = await db.$queryRaw<[{ one: string; none: string }]>`
      SELECT imported_trace_hash('[{"function": "a", "args": {"x": 1}, "stateChanging": true}]') AS one, imported_trace_hash('[]') AS none`;
    expect(hashes).toEqual({
      one: createHash("sha256").update('[["a", {"x": 1}, true]]').digest("hex"),
      none: createHash("sha256").update("[]").digest("hex"),
    });
    // AgentDojo runs: the suite from the task id, the writes from AgentDojo's policy (update_password and update_user_info change state).
    expect(traces.find((t) => t.suite === "banking" && t.task === "user_task_13")).toMatchObject({
      callCount: 3,
      stateChangingCount: 2,
      writes: ["update_password", "update_user_info"],
    });
    // Inspect runs: the evaluation's benchmark as suite, the task id as task; their tools are unclassified, so calls that may write, as the audit counts them.
    expect(traces.find((t) => t.suite === "deploy")).toMatchObject({ task: "deploy/1", callCount: 3, stateChangingCount: 3 });
    // The ground truth is still there beside them.
    expect((await listTraces(db, { source: "ground_truth", limit: 500 })).traces).toHaveLength(97 + 35);
  });

  it("links a trace to the runs that used it, and shows its calls in order with the writes marked", async () => {
    const id = (await imported()).find((t) => t.suite === "banking" && t.task === "user_task_13")!.id;
    const trace = await getTrace(db, id);
    expect(trace).toMatchObject({ source: "imported", linkedRuns: { total: 1 } });
    expect(trace!.linkedRuns.runs[0]).toMatchObject({
      externalId: "gpt-4o-2024-05-13/banking/user_task_13/important_instructions/injection_task_7",
      toolCalls: 3,
    });
    expect(trace!.calls.map((c) => [c.function, c.stateChanging])).toEqual([
      ["read_file", false],
      ["update_password", true],
      ["update_user_info", true],
    ]);
    // The ground-truth trace of that task still links to the run by its task id.
    const groundTruth = (await listTraces(db, { source: "ground_truth", task: "banking/user_task_13", limit: 1 })).traces[0]!;
    expect(groundTruth.linkedRuns).toBe(1);
  });

  it("changes nothing when the same files are imported again, and heals a run left without its trace", async () => {
    const before = await library();
    const unlinked = await db.evaluationRunTrace.updateMany({
      where: { run: { externalId: { contains: "banking/user_task_0/" } } },
      data: { traceId: null },
    });
    expect(unlinked.count).toBe(1);
    const report = await importLogs(db, [AGENTDOJO_RUNS, INSPECT_LOGS, HAND_MADE]);
    expect(report).toMatchObject({ imported: 0, failed: [] });
    expect(await library()).toEqual(before);
  });

  it("shares one trace between runs with one call sequence", async () => {
    // The same log into a second evaluation: a second run with the first one's sequence.
    await importLogs(db, [BANKING_0], { evaluationName: "AgentDojo copy" });
    expect(await db.evaluationRunTrace.count({ where: { traceId: { not: null } } })).toBe(38);
    const traces = await imported();
    expect(traces).toHaveLength(17);
    const shared = traces.find((t) => t.suite === "banking" && t.task === "user_task_0")!;
    expect(shared.linkedRuns).toBe(2);
    expect((await getTrace(db, shared.id))!.linkedRuns.runs.map((r) => r.evaluationName).sort()).toEqual([
      "AgentDojo copy",
      "AgentDojo gpt-4o-2024-05-13",
    ]);
  });

  it("replays an imported trace with a state-changing call by id", async () => {
    const traces = await imported();
    const banking13 = traces.find((t) => t.suite === "banking" && t.task === "user_task_13")!;
    const [replay] = await resolveTraceSelection(db, { ids: [banking13.id] });
    expect(replay).toMatchObject({ taskId: "banking/user_task_13" });
    expect(replay!.calls.map((c) => c.function)).toEqual(["read_file", "update_password", "update_user_info"]);
  });

  it("links a run sent again with other calls to its new sequence's trace", async () => {
    const log = await importLogFile(BANKING_0);
    const run = log.runs[0]!;
    const changed = { ...run, toolCalls: run.toolCalls!.map((c, i) => (i === 0 ? { ...c, arguments: { file_path: "other.txt" } } : c)) };
    const evaluation = await db.evaluation.findFirstOrThrow({ where: { name: "AgentDojo gpt-4o-2024-05-13" } });
    await ingestRuns(db, evaluation.id, [changed]);
    expect(
      await db.evaluationRunTrace.findFirstOrThrow({ where: { run: { evaluationId: evaluation.id, externalId: run.externalId } } }),
    ).toMatchObject({ traceId: null });
    expect(await recordImportedTraces(db, evaluation.id)).toBe(1);
    const traces = await imported();
    expect(traces).toHaveLength(18);
    expect(
      traces
        .filter((t) => t.suite === "banking" && t.task === "user_task_0")
        .map((t) => t.linkedRuns)
        .sort(),
    ).toEqual([1, 1]);
  });

  it("stops after 10 passes that leave a run unlinked, naming the evaluation; the importer reports the files, and a later import links them", async () => {
    // A trigger that refuses every link, counting the attempts: every pass sees the run and links nothing.
    await db.$executeRawUnsafe(`CREATE SEQUENCE link_attempts`);
    await db.$executeRawUnsafe(
      `CREATE FUNCTION refuse_link() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM nextval('link_attempts'); RETURN NULL; END $$`,
    );
    await db.$executeRawUnsafe(
      `CREATE TRIGGER refuse_link BEFORE UPDATE OF trace_id ON evaluation_run_traces FOR EACH ROW WHEN (NEW.trace_id IS NOT NULL) EXECUTE FUNCTION refuse_link()`,
    );
    const attempts = async () => Number((await db.$queryRaw<{ n: bigint }[]>`SELECT last_value AS n FROM link_attempts`)[0]!.n);
    try {
      const report = await importLogs(db, [BANKING_0], { evaluationName: "Unlinkable" });
      const evaluation = await db.evaluation.findFirstOrThrow({ where: { name: "Unlinkable" } });
      expect(report.failed).toEqual([
        {
          file: BANKING_0,
          error: `runs stored, traces not recorded: evaluation ${evaluation.id}: 1 run(s) still without their trace after 10 passes`,
        },
      ]);
      expect(await attempts()).toBe(10);
      const refused = await recordImportedTraces(db, evaluation.id).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(UnlinkedRunsError);
      expect(refused).toMatchObject({ evaluationId: evaluation.id, unlinked: 1 });
      expect(await attempts()).toBe(20);
    } finally {
      await db.$executeRawUnsafe(`DROP TRIGGER refuse_link ON evaluation_run_traces`);
      await db.$executeRawUnsafe(`DROP FUNCTION refuse_link`);
      await db.$executeRawUnsafe(`DROP SEQUENCE link_attempts`);
    }
    expect(await importLogs(db, [BANKING_0], { evaluationName: "Unlinkable" })).toMatchObject({ unchanged: 1, failed: [] });
    expect(await db.evaluationRunTrace.findFirstOrThrow({ where: { run: { evaluation: { name: "Unlinkable" } } } })).toMatchObject({
      traceId: expect.any(String),
    });
  });
});

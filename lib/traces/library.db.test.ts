import { describe, expect, it } from "vitest";
import type { Db } from "../db/prisma";
import { DomainError } from "../errors";
import { importLogs } from "../importers/import-logs";
import { useTestDatabase } from "../testing/use-test-database";
import { AGENTDOJO_RUNS } from "../testing/importer-fixtures";
import { getTrace, listTraces, loadGroundTruthTraces, resolveTraceSelection } from "./library";

// The trace library on a real PostgreSQL: AgentDojo's ground truth loaded once, listed and paged,
// imported runs linked to their task's trace, and selections resolved for the replay.
let db: Db;

useTestDatabase((database) => (db = database.db));

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => (error instanceof DomainError ? { kind: error.kind, field: error.field, message: error.message } : error),
  );

describe("the trace library", () => {
  it("loads the v1.2.1 ground truth once: 97 user tasks, and a second start adds nothing", async () => {
    const loaded = await loadGroundTruthTraces(db);
    expect(loaded).toBe(97 + 35);
    expect(await Promise.all([loadGroundTruthTraces(db), loadGroundTruthTraces(db)])).toEqual([0, 0]);
    expect(await db.trace.count()).toBe(loaded);
    const users = await db.trace.groupBy({ by: ["suite"], where: { kind: "user" }, _count: true, orderBy: { suite: "asc" } });
    expect(users.map((u) => [u.suite, u._count])).toEqual([
      ["banking", 16],
      ["slack", 21],
      ["travel", 20],
      ["workspace", 40],
    ]);
    // Read by hand from the file: banking has 9 injection tasks, 12 user tasks with a write.
    expect(await db.trace.count({ where: { suite: "banking", kind: "injection" } })).toBe(9);
    expect(await db.trace.count({ where: { suite: "banking", kind: "user", stateChangingCount: { gt: 0 } } })).toBe(12);
  });

  it("lists traces by suite, user tasks first in task-number order, with the state-changing calls, and pages without gaps", async () => {
    const first = await listTraces(db, { suite: "banking", kind: "user", limit: 5 });
    expect(first.traces.map((t) => t.task)).toEqual(["user_task_0", "user_task_1", "user_task_2", "user_task_3", "user_task_4"]);
    expect(first.traces[3]).toMatchObject({ callCount: 2, stateChangingCount: 1, writes: ["send_money"] });
    const seen = [...first.traces];
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await listTraces(db, {
        suite: "banking",
        kind: "user",
        limit: 5,
        cursor: JSON.parse(Buffer.from(cursor, "base64url").toString()),
      });
      seen.push(...page.traces);
      cursor = page.nextCursor;
    }
    expect(seen.map((t) => t.task)).toEqual(Array.from({ length: 16 }, (_, i) => `user_task_${i}`));
    const readOnly = await listTraces(db, { suite: "banking", kind: "user", writes: "without", limit: 50 });
    expect(readOnly.traces.map((t) => t.task)).toEqual(["user_task_1", "user_task_7", "user_task_8", "user_task_10"]);
    expect(readOnly.traces.every((t) => t.stateChangingCount === 0 && t.writes.length === 0)).toBe(true);
    const all = await listTraces(db, { limit: 500 });
    expect(all.traces[0]).toMatchObject({ suite: "banking", kind: "user", task: "user_task_0" });
    expect(all.traces.findIndex((t) => t.kind === "injection")).toBe(16);
  });

  // The import also records the runs' own call sequences as imported traces (lib/evaluations/record-traces/record-traces.db.test.ts): these look at ground truth.
  it("links imported AgentDojo runs to their task's trace, and shows the calls in order with the writes marked", async () => {
    const report = await importLogs(db, [AGENTDOJO_RUNS]);
    expect(report.failed).toEqual([]);
    const id = (await listTraces(db, { source: "ground_truth", task: "banking/user_task_13", limit: 1 })).traces[0]!.id;
    const trace = await getTrace(db, id);
    expect(trace).toMatchObject({ suite: "banking", task: "user_task_13", kind: "user", linkedRuns: { total: 1 } });
    expect(trace!.linkedRuns.runs[0]).toMatchObject({
      externalId: "gpt-4o-2024-05-13/banking/user_task_13/important_instructions/injection_task_7",
      endpointLabel: "failure",
    });
    expect(trace!.calls.map((c) => [c.function, c.stateChanging])).toEqual([
      ["read_file", false],
      ["update_user_info", true],
    ]);
    const listed = await listTraces(db, { source: "ground_truth", suite: "banking", task: "user_task_0", limit: 5 });
    expect(listed.traces[0]).toMatchObject({ task: "user_task_0", linkedRuns: 1 });
    expect(await getTrace(db, "00000000-0000-4000-8000-000000000000")).toBeNull();
  });

  it("resolves a selection into the replay's traces, or refuses it naming the field and the task", async () => {
    const banking = await resolveTraceSelection(db, { suite: "banking" });
    expect(banking).toHaveLength(12);
    expect(banking[0]!.taskId).toBe("banking/user_task_0");
    expect(banking.every((t) => t.calls.some((c) => c.stateChanging))).toBe(true);
    const two = await resolveTraceSelection(db, { tasks: ["banking/user_task_4", "banking/user_task_3"] });
    expect(two.map((t) => t.taskId)).toEqual(["banking/user_task_3", "banking/user_task_4"]);
    expect(two[0]!.calls.map((c) => c.function)).toEqual(["get_most_recent_transactions", "send_money"]);
    const ids = (await listTraces(db, { source: "ground_truth", task: "slack/user_task_1", limit: 1 })).traces.map((t) => t.id);
    expect((await resolveTraceSelection(db, { ids })).map((t) => t.taskId)).toEqual(["slack/user_task_1"]);
    expect(await refusal(resolveTraceSelection(db, { tasks: ["banking/user_task_99"] }))).toMatchObject({
      kind: "invalid",
      field: "traceSelection.tasks",
      message: expect.stringContaining("banking/user_task_99"),
    });
    expect(await refusal(resolveTraceSelection(db, { tasks: ["banking/user_task_1"] }))).toMatchObject({
      kind: "invalid",
      message: expect.stringContaining("makes no state-changing call"),
    });
    expect(await refusal(resolveTraceSelection(db, { ids: ["00000000-0000-4000-8000-000000000000"] }))).toMatchObject({
      kind: "invalid",
      field: "traceSelection.ids",
    });
  });
});

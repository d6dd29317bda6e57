import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { spawnDelayedWriteService, type ServiceProcess } from "../../delayed-write/spawn";
import { createTestDatabase, type TestDatabase } from "../../testing/database";
import { loadGroundTruthTraces, resolveTraceSelection } from "../../traces/library";
import { replayConfigSchema } from "../rules/config";
import { table2Mismatches } from "../rules/expected-table2";
import { writesOf } from "../rules/records";
import { replayExperiment } from "../run/run-experiment";
import { storedExperimentTraceResults } from "./trace-results";

// Two real AgentDojo tasks from the trace library, replayed end to end against a delayed-write
// service process and a real PostgreSQL: banking/user_task_3 (one write, the paper's) and
// banking/user_task_15 (three writes: update_user_info, update_scheduled_transaction, send_money).
let service: ServiceProcess;
let database: TestDatabase;

beforeAll(async () => {
  [service, database] = await Promise.all([spawnDelayedWriteService(), createTestDatabase(inject("embeddedAdminUrl"))]);
  await loadGroundTruthTraces(database.db);
});
afterAll(async () => {
  await service?.stop();
  await database?.drop();
});

describe("replaying library traces", () => {
  it("replays each selected task under every policy and condition, each write in its own key, with every check passing", async () => {
    const db = database.db;
    const traces = await resolveTraceSelection(db, { tasks: ["banking/user_task_3", "banking/user_task_15"] });
    // Generous predeclared retries: on a loaded machine the harness can lag past a delay, and a voided attempt is retried, not mislabelled.
    const config = replayConfigSchema.parse({
      delaysMs: [0, 100],
      schedules: 1,
      repetitions: 2,
      concurrency: 8,
      harnessLateRetries: 10,
      environmentFailureRetries: 3,
      traces,
    });
    const summary = await replayExperiment(db, config, service.url);

    expect(summary.checks.filter((c) => !c.passed)).toEqual([]);
    expect(summary.classifications).toEqual({
      completed: 2 * 72,
      agent_failure: 0,
      protocol_stop: 0,
      environment_failure: 0,
      missing_evidence: 0,
    });
    // The mechanism is the paper's for every trace: Table 2's pattern, twice over.
    expect(table2Mismatches(summary, config)).toEqual([]);

    // One open effect per scheduled write: user_task_15's three writes in every trial and every writing pair.
    const effects = await db.openEffect.groupBy({
      by: ["taskId", "action"],
      where: { experimentId: summary.experimentId },
      _count: true,
      orderBy: [{ taskId: "asc" }, { action: "asc" }],
    });
    const perTrial = 6 * 2 * 2 + 5 * 2 * 2; // finality trials + pairs whose A writes
    expect(effects.map((e) => [e.taskId, e.action, e._count])).toEqual([
      ["banking/user_task_15", "send_money", perTrial],
      ["banking/user_task_15", "update_scheduled_transaction", perTrial],
      ["banking/user_task_15", "update_user_info", perTrial],
      ["banking/user_task_3", "send_money", perTrial],
    ]);
    // Each write landed in its own key, and the run's labels cover all three.
    const trial = await db.run.findFirstOrThrow({
      where: { experimentId: summary.experimentId, taskId: "banking/user_task_15", condition: "reconciliation", delayMs: 100 },
    });
    expect(trial.key).toBe("banking.update_user_info,banking.update_scheduled_transaction,banking.send_money");
    const ev = trial.evidence as unknown as import("../rules/records").FinalityEvidence;
    expect(writesOf(ev).map((w) => [w.key, w.terminal.status, w.terminalRead.entry?.writtenBy === w.ack.handle])).toEqual([
      ["banking.update_user_info", "completed", true],
      ["banking.update_scheduled_transaction", "completed", true],
      ["banking.send_money", "completed", true],
    ]);
    expect(trial).toMatchObject({ endpointLabel: "failure", terminalLabel: "success", recordedLabel: "success", finalAtScoring: true });

    // Per trace and per suite: a snapshot scorer mislabels both real tasks in every trial at 100 ms, none at 0 ms.
    const results = (await storedExperimentTraceResults(db, summary.experimentId))!;
    expect(results.suites).toEqual([
      { suite: "banking", delayMs: 0, tasks: 2, tasksMislabelled: 0, trials: 4, mislabelled: 0 },
      { suite: "banking", delayMs: 100, tasks: 2, tasksMislabelled: 2, trials: 4, mislabelled: 4 },
    ]);
    expect(results.traces.map((t) => [t.taskId, t.writes])).toEqual([
      ["banking/user_task_3", 1],
      ["banking/user_task_15", 3],
    ]);
    for (const t of results.traces) {
      expect(t.finality.filter((f) => f.policy === "snapshot").map((f) => [f.delayMs, f.disagreements, f.trials])).toEqual([
        [0, 0, 2],
        [100, 2, 2],
      ]);
      expect(t.separation.filter((s) => s.condition === "shared").map((s) => [s.delayMs, s.exposures, s.pairs])).toEqual([
        [0, 0, 2],
        [100, 2, 2],
      ]);
      expect(t.separation.filter((s) => s.condition === "namespaced").every((s) => s.exposures === 0)).toBe(true);
    }
  });
});

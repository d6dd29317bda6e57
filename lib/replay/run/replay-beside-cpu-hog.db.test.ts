import { spawn, type ChildProcess } from "node:child_process";
import { availableParallelism } from "node:os";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { spawnDelayedWriteService, type ServiceProcess } from "../../delayed-write/spawn";
import { finalityByDelay } from "../../experiments/read/experiment-aggregates";
import { createTestDatabase, type TestDatabase } from "../../testing/database";
import { labelViolations } from "../../testing/worker-processes";
import { replayConfigSchema } from "../rules/config";
import { expectedTable2, table2Mismatches } from "../rules/expected-table2";
import { expectedRunCount, gridUnits } from "../rules/grid";
import { replayExperiment } from "./run-experiment";
import { HARNESS_LATE } from "./run-grid";

// The paper's grid at its 0 and 25 ms delays (5 schedules x 10 repetitions: 50 trials or pairs per cell, as in
// the paper), replayed for real against a delayed-write service process and the embedded PostgreSQL while
// busy-looping processes hog every core. Starved of CPU, the harness reads, cancels and initialises late for
// the 25 ms delay, and the service applies writes late: every such attempt must be voided, logged and
// retried, and what is stored must still be the paper's Table 2, cell by cell.
const grid = replayConfigSchema.parse({
  delaysMs: [0, 25],
  // Generous predeclared retries: the hog is meant to make attempts late, not to exhaust the rule.
  harnessLateRetries: 10,
});
const HOGS_PER_CORE = 1;

let service: ServiceProcess;
let database: TestDatabase;
beforeAll(async () => {
  [service, database] = await Promise.all([spawnDelayedWriteService(), createTestDatabase(inject("embeddedAdminUrl"))]);
});
afterAll(async () => {
  await service?.stop();
  await database?.drop();
});

/** What the mechanism predicts for each policy at each delay: the grid's prediction for that delay alone. */
const expectedByDelay = () =>
  grid.delaysMs
    .flatMap((delayMs) =>
      expectedTable2({ ...grid, delaysMs: [delayMs] }).finality.map((row) => ({
        policy: row.policy,
        delayMs,
        trials: row.trials,
        successes: row.successes,
        disagreements: row.disagreements,
      })),
    )
    .sort((a, b) => a.policy.localeCompare(b.policy) || a.delayMs - b.delayMs);

describe("the replay beside a CPU hog", () => {
  it(
    "voids, logs and retries every attempt whose harness was late, and stores exactly the paper's cells",
    { timeout: 120_000 },
    async () => {
      const db = database.db;
      const hogs: ChildProcess[] = Array.from({ length: HOGS_PER_CORE * availableParallelism() }, () =>
        spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }),
      );
      const logged: string[] = [];
      let summary;
      try {
        summary = await replayExperiment(db, grid, service.url, undefined, (line) => logged.push(line));
      } finally {
        for (const hog of hogs) hog.kill("SIGKILL");
      }
      const experimentId = summary.experimentId;
      const total = expectedRunCount(grid);

      const byDelay = (await finalityByDelay(db, experimentId)).sort((a, b) => a.policy.localeCompare(b.policy) || a.delayMs - b.delayMs);
      // One comparison, so that a failure shows every problem at once.
      expect({
        storedRuns: await db.run.count({ where: { experimentId } }),
        classifications: summary.classifications,
        failedChecks: summary.checks.filter((c) => !c.passed).map((c) => `${c.name}: ${c.evidence}`),
        table2Mismatches: table2Mismatches(summary, grid),
        finalityByDelay: byDelay,
        // Run by run: every label is the one its own cell dictates (separation exposures at 25 ms included).
        labelViolations: await labelViolations(db, experimentId),
      }).toEqual({
        storedRuns: total,
        classifications: { completed: total, agent_failure: 0, protocol_stop: 0, environment_failure: 0, missing_evidence: 0 },
        failedChecks: [],
        table2Mismatches: [],
        finalityByDelay: expectedByDelay(),
        labelViolations: [],
      });

      // Every voided attempt was logged once and is kept on its unit's runs as evidence, and its unit was retried:
      // a unit with k failed attempts was stored from attempt k, in the namespace of that retry.
      const units = await db.$queryRaw<Array<{ group_id: string; namespace: string; failed_attempts: number }>>`
      SELECT group_id, namespace, jsonb_array_length(evidence->'serviceFailures') AS failed_attempts
        FROM runs WHERE experiment_id = ${experimentId}::uuid AND role <> 'B'`;
      expect(units).toHaveLength(gridUnits(grid).length);
      // (a namespaced pair's A writes in its unit's namespace + "/A")
      const storedAttempt = (namespace: string) => Number(/\/retry(\d+)(?:\/A)?$/.exec(namespace)?.[1] ?? 0);
      expect(units.filter((u) => storedAttempt(u.namespace) !== u.failed_attempts)).toEqual([]);
      const voided = await db.$queryRaw<Array<{ line: string }>>`
      SELECT r.group_id || ' attempt ' || (f->>'attempt') || ' voided, ' || (f->>'detail') AS line
        FROM runs r, jsonb_array_elements(r.evidence->'serviceFailures') f
       WHERE r.experiment_id = ${experimentId}::uuid AND r.role <> 'B' AND f->>'detail' LIKE ${`${HARNESS_LATE}%`}`;
      expect(logged.map((line) => line.replace(/; retried in \d+ ms$/, "")).sort()).toEqual(voided.map((v) => v.line).sort());
      // The hog did make the harness late: the voiding this test is about was exercised, not merely allowed.
      expect(voided.length).toBeGreaterThan(0);
      console.log(
        `beside ${hogs.length} busy-looping processes: ${voided.length} attempts voided as late and retried, ${total} runs stored`,
      );
    },
  );
});

// What the run_summary tests share: a test database, experiments stored unit by unit as the replay
// would, seeded unit results, and the whole-summary comparison against the reference (summary-reference.ts).
import { afterAll, beforeAll, expect, inject } from "vitest";
import type { Db } from "../db/prisma";
import { experimentStatus } from "../experiments/progress";
import type { Prisma } from "../generated/prisma/client";
import {
  FINALITY_POLICIES,
  SEPARATION_CONDITIONS,
  replayConfigSchema,
  type FinalityPolicy,
  type SeparationCondition,
} from "../replay/rules/config";
import type { ReplayUnit } from "../replay/rules/grid";
import { unitGroupId } from "../replay/rules/grid";
import { type StoredUnit } from "../replay/store/persist";
import type { RunRecord, UnitResult } from "../replay/rules/records";
import { inheritedStateFor } from "../replay/rules/separation-rules";
import { experimentSummary } from "../replay/store/summary";
import { createTestDatabase, type TestDatabase } from "./database";
import { finalityByDelay, unresolvedRuns } from "../experiments/read/experiment-aggregates";
import { referenceExperimentSummary } from "./summary-reference";

export let database: TestDatabase;
export let db: Db;

export async function createExperiment(grid: { delaysMs: number[]; schedules: number; repetitions: number }): Promise<string> {
  const config = replayConfigSchema.parse(grid);
  const experiment = await db.experiment.create({
    data: { state: "running", config: config as unknown as Prisma.InputJsonValue, wallMs: 1234.5 },
  });
  await db.implementationCheck.createMany({
    data: ["never_applied_early", "every_run_recorded_once"].map((name, position) => ({
      experimentId: experiment.id,
      position,
      name,
      passed: position === 0,
      evidence: `${position}/1`,
    })),
  });
  return experiment.id;
}

/**
 * The fast summary equals the reference exactly (same JSON, same numbers to the last bit), and so do
 * the experiment page's other aggregates read from run_summary_cells, against the queries on runs
 * they replaced.
 */
export async function expectExact(experimentId: string): Promise<Awaited<ReturnType<typeof experimentSummary>>> {
  const [fast, reference] = await Promise.all([experimentSummary(db, experimentId), referenceExperimentSummary(db, experimentId)]);
  expect(fast).toStrictEqual(reference);
  expect(JSON.stringify(fast)).toBe(JSON.stringify(reference));

  const byDelay = await db.$queryRaw<Array<{ policy: string; delay_ms: number; trials: bigint; successes: bigint; disagreements: bigint }>>`
    SELECT condition AS policy, delay_ms,
           count(*) AS trials,
           count(*) FILTER (WHERE recorded_label = 'success') AS successes,
           count(*) FILTER (WHERE endpoint_label IS NOT NULL AND terminal_label IS NOT NULL AND endpoint_label <> terminal_label) AS disagreements
      FROM runs WHERE experiment_id = ${experimentId}::uuid AND test = 'finality'
     GROUP BY condition, delay_ms ORDER BY condition, delay_ms`;
  expect(await finalityByDelay(db, experimentId)).toStrictEqual(
    byDelay.map((r) => ({
      policy: r.policy,
      delayMs: r.delay_ms,
      trials: Number(r.trials),
      successes: Number(r.successes),
      disagreements: Number(r.disagreements),
    })),
  );
  const [unresolved] = await db.$queryRaw<Array<{ n: number }>>`
    SELECT count(*)::int AS n FROM runs WHERE experiment_id = ${experimentId}::uuid AND terminal_label = 'unresolved'`;
  expect(await unresolvedRuns(db, experimentId)).toBe(unresolved!.n);
  const stored = await db.$queryRaw<Array<{ condition: string; n: bigint }>>`
    SELECT condition, count(*) AS n FROM runs WHERE experiment_id = ${experimentId}::uuid GROUP BY condition`;
  const status = await experimentStatus(db, experimentId);
  expect(status!.conditions.map((c) => [c.condition, c.done])).toStrictEqual(
    status!.conditions.map((c) => [c.condition, Number(stored.find((s) => s.condition === c.condition)?.n ?? 0)]),
  );
  return fast;
}

/** Rows of a run_summary_* table for an experiment (raw SQL: the app never reads them through the model API). */
export async function summaryRows(
  table: "run_summary_cells" | "run_summary_groups" | "run_summary_group_counts",
  experimentId: string,
  and = "",
): Promise<number> {
  const [row] = await db.$queryRawUnsafe<Array<{ n: number }>>(
    `SELECT count(*)::int AS n FROM ${table} WHERE experiment_id = $1::uuid ${and}`,
    experimentId,
  );
  return row!.n;
}

export type Outcome = "completed" | "agent_failure" | "protocol_stop" | "environment_failure" | "missing_evidence";

/**
 * One unit's runs as the replay records them (finality-trial.ts, separation-pair.ts, run-grid.ts),
 * with an outcome drawn so that every classification, label and null appears: environment and
 * agent failures (no labels, no measured delay), protocol stops (unresolved terminal label),
 * missing evidence, exposures of B under shared and grouped at nonzero delays. Measured delays
 * repeat now and then (ties) and are rounded coarsely for some units.
 */
export function unitResult(unit: ReplayUnit, rand: () => number): UnitResult {
  const draw = rand();
  const outcome: Outcome =
    draw < 0.05
      ? "environment_failure"
      : draw < 0.08
        ? "agent_failure"
        : draw < 0.12
          ? "protocol_stop"
          : draw < 0.15
            ? "missing_evidence"
            : "completed";
  const late = unit.delayMs > 0;
  const overhead =
    rand() < 0.1 ? 0.25 : rand() < 0.3 ? Math.round(rand() * 100) / 1000 : 0.002 + rand() * 0.01 + (rand() < 0.05 ? rand() * 4 : 0);
  const measured = unit.delayMs + overhead;
  const groupId = unitGroupId(unit);
  const base = {
    test: unit.test,
    condition: unit.condition,
    taskId: "banking/user_task_3",
    groupId,
    scheduleId: unit.scheduleId,
    delayMs: unit.delayMs,
    repetition: unit.repetition,
    namespace: `bl/test/${groupId}`,
    key: "banking.send_money",
    startedAtMs: 1000 + rand() * 1000,
    endpointAtMs: 1001,
    scoredAtMs: 1002,
    endedAtMs: 1003,
    evidence: { kind: "environment_failure" as const, serviceFailures: [] },
  };
  const failed = outcome === "environment_failure" || outcome === "agent_failure";
  const roles = unit.test === "finality" ? (["single"] as const) : (["A", "B"] as const);
  if (failed) {
    return {
      unit,
      effects: [],
      runs: roles.map((role) => ({
        ...base,
        role,
        endpointLabel: null,
        terminalLabel: "unresolved",
        recordedLabel: "unresolved",
        finalAtScoring: false,
        score: null,
        measuredDelayMs: null,
        exposure: null,
        classification: outcome,
        inheritedState: inheritedStateFor(unit.test === "finality" ? "finality" : unit.condition, role),
        endpointAtMs: null,
        scoredAtMs: null,
      })),
    };
  }
  const score = (label: RunRecord["recordedLabel"]) => (label === "success" ? 1 : label === "failure" ? 0 : null);
  const stopped = outcome === "protocol_stop";
  const classification = outcome;
  if (unit.test === "finality") {
    const policy: FinalityPolicy = unit.condition;
    const sync = policy.startsWith("sync_");
    const endpoint = late && !sync ? "failure" : "success";
    const cancelled = policy === "verified_cancellation" && late;
    const terminal = stopped ? "unresolved" : cancelled ? "failure" : "success";
    const recorded = policy === "snapshot" || policy === "sync_snapshot" ? endpoint : terminal;
    return {
      unit,
      effects: [],
      runs: [
        {
          ...base,
          role: "single",
          endpointLabel: endpoint,
          terminalLabel: terminal,
          recordedLabel: recorded,
          finalAtScoring: !stopped && !(policy === "snapshot" && late),
          score: score(recorded),
          measuredDelayMs: stopped || cancelled ? null : measured,
          exposure: null,
          classification,
          inheritedState: "none",
        },
      ],
    };
  }
  const condition: SeparationCondition = unit.condition;
  const writes = condition !== "no_write";
  const exposed = late && (condition === "shared" || condition === "grouped");
  const bLabel = stopped ? "unresolved" : exposed ? "failure" : "success";
  const runA: RunRecord = {
    ...base,
    role: "A",
    endpointLabel: writes ? (late && condition !== "verified_reset" ? "failure" : "success") : null,
    terminalLabel: writes ? (stopped ? "unresolved" : "success") : null,
    recordedLabel: writes ? (stopped ? "unresolved" : "success") : null,
    finalAtScoring: writes ? !stopped : null,
    score: writes && !stopped ? 1 : null,
    measuredDelayMs: writes && !stopped ? measured : null,
    exposure: null,
    classification,
    inheritedState: "none",
  };
  const runB: RunRecord = {
    ...base,
    role: "B",
    endpointLabel: "success",
    terminalLabel: bLabel,
    recordedLabel: bLabel,
    finalAtScoring: true,
    score: score(bLabel),
    measuredDelayMs: null,
    exposure: exposed,
    classification,
    inheritedState: inheritedStateFor(condition, "B"),
  };
  return { unit, effects: [], runs: [runA, runB] };
}

export function gridUnitsOf(grid: { delaysMs: number[]; schedules: number; repetitions: number }, repetitionsFrom = 1): ReplayUnit[] {
  const units: ReplayUnit[] = [];
  for (let repetition = repetitionsFrom; repetition <= grid.repetitions; repetition++) {
    for (let scheduleId = 1; scheduleId <= grid.schedules; scheduleId++) {
      for (const delayMs of grid.delaysMs) {
        for (const condition of FINALITY_POLICIES) units.push({ test: "finality", trace: 0, condition, scheduleId, delayMs, repetition });
        for (const condition of SEPARATION_CONDITIONS)
          units.push({ test: "separation", trace: 0, condition, scheduleId, delayMs, repetition });
      }
    }
  }
  return units;
}

export const stored = (experimentId: string, results: UnitResult[]): StoredUnit[] => results.map((result) => ({ experimentId, result }));

/** The file's test database, made before its tests and dropped after them. */
export function useRunSummaryDatabase(): void {
  beforeAll(async () => {
    database = await createTestDatabase(inject("embeddedAdminUrl"));
    db = database.db;
  });
  afterAll(async () => {
    await database?.drop();
  });
}

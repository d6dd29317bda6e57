import pLimit from "p-limit";
import { ServiceFailure } from "../delayed-write/client";
import { classifyRun } from "./classification";
import type { ReplayConfig } from "./config";
import type { ReplayContext } from "./context";
import { runFinalityTrial } from "./finality-trial";
import { gridUnits, unitGroupId, unitNamespace, type ReplayUnit } from "./grid";
import type { RunRecord, ServiceFailureEvidence, UnitResult } from "./records";
import { runSeparationPair } from "./separation-pair";
import { inheritedStateFor } from "./separation-rules";
import { routedWrite } from "./trace";

export function runUnit(ctx: ReplayContext, unit: ReplayUnit, attempt: number): Promise<UnitResult> {
  return unit.test === "finality" ? runFinalityTrial(ctx, unit, attempt) : runSeparationPair(ctx, unit, attempt);
}

/**
 * Runs one unit under the predeclared environment-failure rule: a unit whose service call fails is
 * retried in a fresh namespace up to `retries` times, then recorded as an environment failure with
 * its evidence. A write the service rejects as invalid is the trace's fault: an agent failure, not retried.
 */
export async function runUnitWithRule(ctx: ReplayContext, unit: ReplayUnit, retries: number, firstAttempt = 0): Promise<UnitResult> {
  const failures: ServiceFailureEvidence[] = [];
  for (let attempt = firstAttempt; attempt <= firstAttempt + retries; attempt++) {
    try {
      const result = await runUnit(ctx, unit, attempt);
      for (const run of result.runs) run.evidence.serviceFailures.push(...failures);
      return result;
    } catch (error) {
      if (!(error instanceof ServiceFailure)) throw error;
      failures.push({ request: error.request, detail: error.detail, status: error.status, atMs: ctx.serviceNow(), attempt });
      const rejectedWrite = error.request.startsWith("POST /v1/writes") && error.status !== undefined && error.status >= 400 && error.status < 500;
      if (rejectedWrite) return failedUnit(ctx, unit, attempt, failures, "agent");
    }
  }
  return failedUnit(ctx, unit, firstAttempt + retries, failures, "environment");
}

/** The runs of a unit that could not finish: kept, classified, with their evidence, never dropped. */
function failedUnit(ctx: ReplayContext, unit: ReplayUnit, attempt: number, failures: ServiceFailureEvidence[], cause: "agent" | "environment"): UnitResult {
  const roles = unit.test === "finality" ? (["single"] as const) : (["A", "B"] as const);
  const now = ctx.serviceNow();
  const runs: RunRecord[] = roles.map((role) => ({
    test: unit.test,
    condition: unit.condition,
    taskId: ctx.trace.taskId,
    groupId: unitGroupId(unit),
    scheduleId: unit.scheduleId,
    delayMs: unit.delayMs,
    repetition: unit.repetition,
    role,
    namespace: unitNamespace(ctx.namespacePrefix, unit, attempt),
    key: routedWrite(ctx.trace).key,
    endpointLabel: null,
    terminalLabel: "unresolved",
    recordedLabel: "unresolved",
    finalAtScoring: false,
    score: null,
    measuredDelayMs: null,
    exposure: null,
    classification: classifyRun({ environmentFailure: cause === "environment", agentError: cause === "agent", budgetReached: false, evidenceComplete: false }),
    inheritedState: inheritedStateFor(unit.test === "finality" ? "finality" : unit.condition, role),
    startedAtMs: failures[0]?.atMs ?? now,
    endpointAtMs: null,
    scoredAtMs: null,
    endedAtMs: now,
    evidence: { kind: "environment_failure", serviceFailures: failures },
  }));
  return { unit, runs, effects: [] };
}

/** The first wave of units is spread over this long, so that their writes do not all come due at once. */
const RAMP_MS = 200;

/** Runs every unit of the grid with bounded concurrency. */
export async function runGrid(ctx: ReplayContext, config: ReplayConfig): Promise<UnitResult[]> {
  const limit = pLimit(config.concurrency);
  const step = RAMP_MS / config.concurrency;
  return Promise.all(
    gridUnits(config).map((unit, index) =>
      limit(async () => {
        if (index < config.concurrency && index > 0) await new Promise((resolve) => setTimeout(resolve, index * step));
        return runUnitWithRule(ctx, unit, config.environmentFailureRetries);
      }),
    ),
  );
}

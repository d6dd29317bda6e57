import pLimit from "p-limit";
import { AdmissionControl } from "./admission";
import { ServiceFailure } from "../../delayed-write/delayed-write-client";
import { classifyRun } from "../rules/classification";
import type { ReplayConfig } from "../rules/config";
import type { ReplayContext, VoidedAttempt } from "./context";
import { runFinalityTrial } from "./finality-trial";
import { harnessLateness } from "../rules/harness-timing";
import { gridUnits, unitGroupId, unitNamespace, type ReplayUnit } from "../rules/grid";
import type { RunRecord, ServiceFailureEvidence, UnitResult } from "../rules/records";
import { runSeparationPair } from "./separation-pair";
import { inheritedStateFor } from "../rules/separation-rules";
import { routedWrites } from "../rules/trace";

export function runUnit(ctx: ReplayContext, unit: ReplayUnit, attempt: number): Promise<UnitResult> {
  return unit.test === "finality" ? runFinalityTrial(ctx, unit, attempt) : runSeparationPair(ctx, unit, attempt);
}

/** Detail prefix of a failure that was the replay's own lag (harness-timing.ts), not the service's. */
export const HARNESS_LATE = "harness late";
/**
 * A late unit's first retry waits this long (up to twice, jittered), so that the load that made it late
 * can drain; each further retry waits twice as long, up to HARNESS_RETRY_PAUSE_MAX_MS. Load comes in
 * bursts longer than one pause: beside a CPU hog, a unit retried at a fixed 250–500 ms was late four
 * times running and ended as an environment failure, one run short in its cell.
 */
const HARNESS_RETRY_PAUSE_MS = 250;
const HARNESS_RETRY_PAUSE_MAX_MS = 4_000;

/** What a replay says of an attempt it voided because its harness was late (the evidence keeps the same detail). */
export function voidedAttemptLine(voided: VoidedAttempt): string {
  const then =
    voided.retryInMs === null ? "out of retries: stored as an environment failure" : `retried in ${Math.round(voided.retryInMs)} ms`;
  return `${unitGroupId(voided.unit)} attempt ${voided.attempt} voided, ${voided.detail}; ${then}`;
}

/** The predeclared retry rule of an experiment (its config's fields of the same names). */
export type RetryRule = Pick<ReplayConfig, "environmentFailureRetries" | "harnessLateRetries">;

/** Attempts one run of a unit may take at most: its namespaces are numbered within this many per job attempt. */
export const attemptsPerRun = (rule: RetryRule) => rule.environmentFailureRetries + rule.harnessLateRetries + 1;

/**
 * Runs one unit under the experiment's predeclared rule. A unit whose service call fails is retried
 * in a fresh namespace up to `environmentFailureRetries` times; one whose harness was late for its own
 * delay (harness-timing.ts) up to `harnessLateRetries` times, after a pause. Every voided attempt is
 * kept as evidence on the unit's runs; a unit out of retries is recorded as an environment failure.
 * A write the service rejects as invalid is the trace's fault: an agent failure, not retried.
 */
export async function runUnitWithRule(ctx: ReplayContext, unit: ReplayUnit, rule: RetryRule, firstAttempt = 0): Promise<UnitResult> {
  const failures: ServiceFailureEvidence[] = [];
  let serviceRetries = rule.environmentFailureRetries;
  let lateRetries = rule.harnessLateRetries;
  for (let attempt = firstAttempt; ; attempt++) {
    try {
      const result = await runUnit(ctx, unit, attempt);
      const { late } = harnessLateness(result.runs);
      if (late.length === 0) {
        // A pair's two runs share one evidence object: each failed attempt is listed once.
        for (const evidence of new Set(result.runs.map((run) => run.evidence))) evidence.serviceFailures.push(...failures);
        return result;
      }
      // The harness lost a race against its own delay: the attempt is void, kept as evidence.
      const detail = `${HARNESS_LATE}: ${late.join("; ")}`;
      failures.push({ request: "replay harness timing", detail, atMs: ctx.serviceNow(), attempt });
      const lateRetry = rule.harnessLateRetries - lateRetries;
      // Retrying at once would meet the same load that made it late.
      const retryInMs =
        lateRetries === 0 ? null : Math.min(HARNESS_RETRY_PAUSE_MS * 2 ** lateRetry, HARNESS_RETRY_PAUSE_MAX_MS) * (1 + Math.random());
      ctx.onHarnessLate?.({ unit, attempt, detail, retryInMs });
      if (retryInMs === null) break;
      lateRetries--;
      await new Promise((resolve) => setTimeout(resolve, retryInMs));
    } catch (error) {
      if (!(error instanceof ServiceFailure)) throw error;
      failures.push({ request: error.request, detail: error.detail, status: error.status, atMs: ctx.serviceNow(), attempt });
      const rejectedWrite =
        error.request.startsWith("POST /v1/writes") && error.status !== undefined && error.status >= 400 && error.status < 500;
      if (rejectedWrite) return failedUnit(ctx, unit, attempt, failures, "agent");
      if (serviceRetries-- === 0) break;
      if (error.detail.startsWith("unreachable")) await ctx.beforeUnreachableRetry?.();
    }
  }
  return failedUnit(ctx, unit, failures.at(-1)!.attempt, failures, "environment");
}

/** The runs of a unit that could not finish: kept, classified, with their evidence, never dropped. */
function failedUnit(
  ctx: ReplayContext,
  unit: ReplayUnit,
  attempt: number,
  failures: ServiceFailureEvidence[],
  cause: "agent" | "environment",
): UnitResult {
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
    key: routedWrites(ctx.trace)
      .map((w) => w.key)
      .join(","),
    endpointLabel: null,
    terminalLabel: "unresolved",
    recordedLabel: "unresolved",
    finalAtScoring: false,
    score: null,
    measuredDelayMs: null,
    exposure: null,
    classification: classifyRun({
      environmentFailure: cause === "environment",
      agentError: cause === "agent",
      budgetReached: false,
      evidenceComplete: false,
    }),
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

/**
 * Runs every unit of the grid, each with its own trace, with bounded concurrency; `onUnit` hears of
 * each as it finishes. Like a worker's slots (lib/worker/replay-slots.ts), the bound sheds load after
 * a late attempt and grows back while units finish on time: at a fixed 64 on a loaded machine, a
 * tenth of the paper's units ran out of retries as environment failures and Table 2 was not exact.
 */
export async function runGrid(
  ctx: ReplayContext,
  config: ReplayConfig,
  onUnit: (result: UnitResult) => void = () => {},
): Promise<UnitResult[]> {
  const limit = pLimit(config.concurrency);
  const admission = new AdmissionControl(config.concurrency);
  const onHarnessLate = (voided: VoidedAttempt) => {
    ctx.onHarnessLate?.(voided);
    limit.concurrency = admission.recordLate();
  };
  const step = RAMP_MS / config.concurrency;
  return Promise.all(
    gridUnits(config).map((unit, index) =>
      limit(async () => {
        if (index < config.concurrency && index > 0) await new Promise((resolve) => setTimeout(resolve, index * step));
        const result = await runUnitWithRule({ ...ctx, trace: config.traces[unit.trace]!, onHarnessLate }, unit, config);
        limit.concurrency = admission.recordOnTime();
        onUnit(result);
        return result;
      }),
    ),
  );
}

import type { Task, TaskList } from "graphile-worker";
import type { Db } from "../db/prisma";
import { runCanaryTrialJob } from "../canary/trial-job";
import { canaryTrialJob } from "../canary/jobs";
import { recordTracesJob } from "../evaluations/record-traces/job";
import { finalizeExperimentJob, replayUnitJob } from "../replay/run/jobs";
import type { UnitResultWriter } from "../replay/store/batch-writer";
import type { ReplayConfig } from "../replay/rules/config";
import type { ReplayContext } from "../replay/run/context";
import type { Trace } from "../replay/rules/trace";
import { finalizeExperiment, unitStored } from "../replay/store/persist";
import { attemptsPerRun, runUnitWithRule, voidedAttemptLine } from "../replay/run/run-grid";
import { recordImportedTraces } from "../evaluations/record-traces/record-traces";
import { recomputePolicyJob } from "../evaluations/policy-recompute/job";
import { applyPendingPolicy } from "../evaluations/policy-recompute/recompute";
import { expireLiveRunJob } from "../evaluations/live/live-run-job";
import { expireLiveRun } from "../evaluations/live/expire-live-runs";
import type { CompletionCheck } from "./completion-check";
import type { ExperimentCache } from "./experiment-cache";
import type { ReplaySlots } from "./replay-slots";
import type { ServiceClock } from "./service-clock";

export interface TaskDependencies {
  db: Db;
  serviceUrl: string;
  clock: ServiceClock;
  slots: ReplaySlots;
  experiments: ExperimentCache;
  writer: UnitResultWriter;
  completion: CompletionCheck;
  /** Whether shutdown handed the jobs still running back to the queue. */
  handedBack(): boolean;
  /** Told once per unit this worker replayed and stored. */
  unitStored(): void;
  log(line: string): void;
}

/** The record_traces job: the evaluation's untraced runs into the trace library (a deleted evaluation has none). */
export function recordTracesTask(db: Db, log: (line: string) => void): Task {
  return recordTracesJob.handler(log, async ({ evaluationId }) => {
    await recordImportedTraces(db, evaluationId);
  });
}

/** The expire_live_run job: a live run still open at its timeout stored unscored (one scored meanwhile is left alone). */
export function expireLiveRunTask(db: Db, log: (line: string) => void): Task {
  return expireLiveRunJob.handler(log, async ({ liveRunId }) => {
    if (await expireLiveRun(db, liveRunId)) log(`live run ${liveRunId}: not scored within its timeout, stored unscored`);
  });
}

/**
 * The recompute_effect_policy job: the evaluation's pending policy version computed chunk by chunk and
 * applied. A worker shutting down stops between chunks and fails the attempt, so the job is retried and
 * goes on from the last chunk committed.
 */
export function recomputePolicyTask(db: Db, log: (line: string) => void, handedBack: () => boolean): Task {
  return recomputePolicyJob.handler(log, async ({ evaluationId }) => {
    await applyPendingPolicy(db, evaluationId, {
      afterStep: (step) => {
        if (step === "applied") log(`evaluation ${evaluationId}: its pending effect-policy version is applied`);
        if (handedBack()) throw new Error("handed back at shutdown; the recompute goes on from its last chunk");
      },
    });
  });
}

/**
 * The worker's jobs: replay one unit and store it, close an experiment whose runs are all stored,
 * run one canary trial (lib/canary/), record an evaluation's ingested runs in the trace library,
 * store a live run that outlived its timeout as unscored, and recompute an evaluation under a new effect-policy version.
 */
export function replayTaskList(deps: TaskDependencies): TaskList {
  const context = (experimentId: string, config: ReplayConfig, trace: Trace): ReplayContext => ({
    client: deps.clock.client,
    serviceUrl: deps.serviceUrl,
    namespacePrefix: `bl/${experimentId}`,
    trace,
    scoringMarginMs: config.scoringMarginMs,
    serviceTimeOrigin: deps.clock.origin,
    serviceNow: deps.clock.now,
    onHarnessLate: (voided) => {
      deps.slots.harnessLate();
      deps.log(`experiment ${experimentId}: ${voidedAttemptLine(voided)}`);
    },
    beforeUnreachableRetry: deps.clock.beforeUnreachableRetry,
  });

  return {
    [replayUnitJob.name]: replayUnitJob.handler(deps.log, async ({ experimentId, unit }, helpers) => {
      const found = await deps.experiments.get(experimentId);
      if (!found || found.state === "cancelled") return;
      const trace = found.config.traces[unit.trace];
      if (!trace) {
        deps.log(`job ${helpers.job.id}: experiment ${experimentId} has no trace ${unit.trace}, not retried`);
        return;
      }
      // Only a retried job can find its unit already stored (its earlier attempt committed, then died).
      const retried = helpers.job.attempts > 1;
      if (!retried || !(await unitStored(deps.db, experimentId, unit, trace.taskId))) {
        // A retried job starts in namespaces its earlier attempts never used.
        const firstAttempt = (helpers.job.attempts - 1) * attemptsPerRun(found.config);
        const result = await deps.slots.run(() =>
          runUnitWithRule(context(experimentId, found.config, trace), unit, found.config, firstAttempt),
        );
        // A unit still replaying when its job was handed back at shutdown is not stored: its job is
        // redone by another worker, and closing this worker's client would otherwise have been
        // recorded as the unit's environment failure.
        if (deps.handedBack()) throw new Error("handed back at shutdown; the unit is redone elsewhere");
        if (result.runs[0]?.evidence.serviceFailures.some((failure) => failure.detail.startsWith("unreachable"))) void deps.clock.resync();
        deps.slots.onTime();
        await deps.writer.write({ experimentId, result });
        deps.unitStored();
      }
      await deps.completion.request(experimentId, found.config);
    }),
    [canaryTrialJob.name]: canaryTrialJob.handler(deps.log, async (payload, helpers) => {
      await runCanaryTrialJob(
        { db: deps.db, client: deps.clock.client, service: () => ({ url: deps.serviceUrl, timeOrigin: deps.clock.origin }) },
        payload,
        helpers.job.attempts,
        helpers.job.max_attempts,
      );
    }),
    [finalizeExperimentJob.name]: finalizeExperimentJob.handler(deps.log, async ({ experimentId }) => {
      await finalizeExperiment(deps.db, experimentId);
      deps.experiments.forget(experimentId);
    }),
    [recordTracesJob.name]: recordTracesTask(deps.db, deps.log),
    [expireLiveRunJob.name]: expireLiveRunTask(deps.db, deps.log),
    [recomputePolicyJob.name]: recomputePolicyTask(deps.db, deps.log, deps.handedBack),
  };
}

import { randomUUID } from "node:crypto";
import type { Db } from "../db/prisma";
import type { DelayedWriteClient } from "../delayed-write/delayed-write-client";
import { UNIT_MAX_ATTEMPTS } from "../replay/run/jobs";
import type { CanaryTrialPayload } from "./jobs";
import { markExperimentFailed, markExperimentStarted, recordService } from "../replay/store/persist";
import { canaryTrialStored, completeCanaryExperimentIfDone, saveCanaryTrial } from "./canary-results-store";
import { runCanaryTrial } from "./trial";

/**
 * The worker's canary job: runs one trial unless its results are stored already (an earlier attempt
 * committed and then died), stores them once, and completes the experiment after its last trial. A
 * retried attempt plants a new canary in namespaces no earlier attempt used. A trial that fails on
 * its last attempt fails the experiment with the reason: no retry is left that could complete it.
 */
export async function runCanaryTrialJob(
  deps: { db: Db; client: DelayedWriteClient; service: () => { url: string; timeOrigin: number } },
  payload: CanaryTrialPayload,
  attempt: number,
  maxAttempts = UNIT_MAX_ATTEMPTS,
): Promise<void> {
  const { db } = deps;
  const { experimentId, condition, trial } = payload;
  const experiment = await db.experiment.findUnique({ where: { id: experimentId }, select: { kind: true, state: true } });
  // A cancelled or failed experiment runs no more trials; a completed one has every trial stored.
  if (!experiment || experiment.kind !== "canary" || (experiment.state !== "queued" && experiment.state !== "running")) return;
  if (attempt === 1 || !(await canaryTrialStored(db, experimentId, condition, trial))) {
    if (experiment.state === "queued") {
      await recordService(db, experimentId, deps.service());
      await markExperimentStarted(db, experimentId);
    }
    try {
      const result = await runCanaryTrial(deps.client, {
        namespacePrefix: `bl/${experimentId}/canary/${condition}/trial${trial}/attempt${attempt}`,
        condition,
        canary: `canary-${randomUUID()}`,
      });
      await saveCanaryTrial(db, experimentId, condition, trial, result);
    } catch (error) {
      if (attempt < maxAttempts) throw error;
      await markExperimentFailed(
        db,
        experimentId,
        `canary trial ${condition} #${trial} failed on its last attempt (${attempt} of ${maxAttempts}): ${(error as Error).message}`,
      );
      return;
    }
  }
  await completeCanaryExperimentIfDone(db, experimentId);
}

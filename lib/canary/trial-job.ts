import { randomUUID } from "node:crypto";
import type { Db } from "../db/prisma";
import type { DelayedWriteClient } from "../delayed-write/client";
import type { CanaryTrialPayload } from "../jobs/definitions";
import { markExperimentStarted, recordService } from "../replay/persist";
import { canaryTrialStored, completeCanaryExperimentIfDone, saveCanaryTrial } from "./store";
import { runCanaryTrial } from "./trial";

/**
 * The worker's canary job: runs one trial unless its results are stored already (an earlier attempt
 * committed and then died), stores them once, and completes the experiment after its last trial. A
 * retried attempt plants a new canary in namespaces no earlier attempt used.
 */
export async function runCanaryTrialJob(
  deps: { db: Db; client: DelayedWriteClient; service: () => { url: string; timeOrigin: number } },
  payload: CanaryTrialPayload,
  attempt: number,
): Promise<void> {
  const { db } = deps;
  const { experimentId, condition, trial } = payload;
  const experiment = await db.experiment.findUnique({ where: { id: experimentId }, select: { kind: true, state: true } });
  if (!experiment || experiment.kind !== "canary" || experiment.state === "cancelled") return;
  if (attempt === 1 || !(await canaryTrialStored(db, experimentId, condition, trial))) {
    if (experiment.state === "queued") {
      await recordService(db, experimentId, deps.service());
      await markExperimentStarted(db, experimentId);
    }
    const result = await runCanaryTrial(deps.client, {
      namespacePrefix: `bl/${experimentId}/canary/${condition}/trial${trial}/attempt${attempt}`,
      condition,
      canary: `canary-${randomUUID()}`,
    });
    await saveCanaryTrial(db, experimentId, condition, trial, result);
  }
  await completeCanaryExperimentIfDone(db, experimentId);
}

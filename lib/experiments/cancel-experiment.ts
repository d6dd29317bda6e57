import type { Db } from "../db/prisma";
import type { DelayedWriteClient } from "../delayed-write/delayed-write-client";
import { failQueuedUnitJobs, lockedExperimentJobCount } from "./experiment-jobs";

export interface CancelOutcome {
  state: string;
  /** Pending operations of the experiment that the service confirmed cancelled. */
  cancelledOperations: number;
  /** Whether, when the call returned, no unit was running and nothing was pending on the service. */
  quiescent: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Cancels a queued or running experiment, and applies the paper's verified cancellation to our own
 * replay: queued units are failed so no worker starts them, and until no unit of the experiment is
 * running, every operation it left pending on the service is cancelled and confirmed by handle.
 * Returns null for an unknown experiment; a finished one is left as it is.
 */
export async function cancelExperiment(
  db: Db,
  experimentId: string,
  service: DelayedWriteClient,
  drainMs = 15_000,
): Promise<CancelOutcome | null> {
  const updated = await db.experiment.updateMany({
    where: { id: experimentId, state: { in: ["queued", "running"] } },
    data: { state: "cancelled", finishedAt: new Date(), error: "cancelled" },
  });
  const experiment = await db.experiment.findUnique({ where: { id: experimentId }, select: { state: true } });
  if (!experiment) return null;
  if (updated.count === 0 && experiment.state !== "cancelled") return { state: experiment.state, cancelledOperations: 0, quiescent: true };

  await failQueuedUnitJobs(db, experimentId, "experiment cancelled");

  let cancelledOperations = 0;
  const deadline = performance.now() + drainMs;
  for (;;) {
    const { operations } = await service.operationsUnder(`bl/${experimentId}/`, "pending");
    for (const op of operations) {
      const { outcome } = await service.cancel(op.handle);
      const confirmed = (await service.operation(op.handle)).operation;
      if (outcome === "cancelled" && confirmed.status === "cancelled") cancelledOperations++;
    }
    const running = await lockedExperimentJobCount(db, experimentId);
    if (operations.length === 0 && running === 0) return { state: "cancelled", cancelledOperations, quiescent: true };
    if (performance.now() > deadline) return { state: "cancelled", cancelledOperations, quiescent: false };
    await sleep(50);
  }
}

import type { Db } from "../db/prisma";
import type { Prisma } from "../generated/prisma/client";
import type { CanaryConfig } from "../canary/config";
import { canaryTrialJob, type CanaryTrialPayload } from "../canary/jobs";

/** Creates a canary experiment and enqueues one job per (condition, trial) in the same transaction. */
export async function createCanaryExperiment(
  db: Db,
  config: CanaryConfig,
  createdById: string | null = null,
  labels: { name?: string; notes?: string } = {},
): Promise<string> {
  return db.$transaction(async (tx) => {
    const { id } = await tx.experiment.create({
      data: {
        kind: "canary",
        state: "queued",
        config: config as unknown as Prisma.InputJsonValue,
        createdById,
        name: labels.name,
        notes: labels.notes,
      },
      select: { id: true },
    });
    const payloads: CanaryTrialPayload[] = config.conditions.flatMap((condition) =>
      Array.from({ length: config.trials }, (_, i) => ({ experimentId: id, condition, trial: i + 1 })),
    );
    await canaryTrialJob.enqueueAll(tx, payloads);
    return id;
  });
}

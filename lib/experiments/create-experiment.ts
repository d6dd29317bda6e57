import type { Db } from "../db/prisma";
import type { Prisma } from "../generated/prisma/client";
import type { ReplayUnitPayload } from "../jobs/definitions";
import { enqueueUnitJobs } from "../jobs/queue";
import type { ReplayConfig } from "../replay/config";
import { gridUnits } from "../replay/grid";

/**
 * Creates an experiment and enqueues one job per unit of its grid in the same transaction: no
 * experiment without its jobs, no job without its experiment.
 */
export async function createQueuedExperiment(
  db: Db,
  config: ReplayConfig,
  createdById: string | null = null,
  labels: { name?: string; notes?: string } = {},
): Promise<string> {
  return db.$transaction(async (tx) => {
    const { id } = await tx.experiment.create({ data: { state: "queued", config: config as unknown as Prisma.InputJsonValue, createdById, name: labels.name, notes: labels.notes }, select: { id: true } });
    const payloads: ReplayUnitPayload[] = gridUnits(config).map((unit) => ({ experimentId: id, unit }));
    await enqueueUnitJobs(tx, payloads);
    return id;
  });
}

import type { Db } from "../db/prisma";
import type { Prisma } from "../generated/prisma/client";
import { replayUnitJob, type ReplayUnitPayload } from "../replay/run/jobs";
import type { ReplayConfig } from "../replay/rules/config";
import { gridUnits } from "../replay/rules/grid";
import type { ExclusionRuleDeclaration } from "../statistics/exclusion-rule";
import { declareRuleAtCreation } from "../statistics/exclusion-rule-store";

/**
 * Creates an experiment (with its declared exclusion rule as version 1, the default when none is
 * given) and enqueues one job per unit of its grid in the same transaction: no experiment without
 * its jobs, no job without its experiment.
 */
export async function createQueuedExperiment(
  db: Db,
  config: ReplayConfig,
  createdById: string | null = null,
  labels: { name?: string; notes?: string } = {},
  exclusionRule?: ExclusionRuleDeclaration,
): Promise<string> {
  return db.$transaction(async (tx) => {
    const { id } = await tx.experiment.create({
      data: { state: "queued", config: config as unknown as Prisma.InputJsonValue, createdById, name: labels.name, notes: labels.notes },
      select: { id: true },
    });
    const payloads: ReplayUnitPayload[] = gridUnits(config).map((unit) => ({ experimentId: id, unit }));
    if (exclusionRule) await declareRuleAtCreation(tx, { kind: "experiment", id }, exclusionRule, createdById);
    await replayUnitJob.enqueueAll(tx, payloads);
    return id;
  });
}

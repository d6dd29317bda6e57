import type { Db } from "../db/prisma";
import type { Prisma } from "../generated/prisma/client";
import { REPLAY_UNIT_JOB, UNIT_MAX_ATTEMPTS, type ReplayUnitPayload } from "../jobs/definitions";
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
    await tx.$queryRaw`
      SELECT count(*) FROM graphile_worker.add_jobs(ARRAY(
        SELECT ROW(${REPLAY_UNIT_JOB}, payload::json, NULL, NULL, ${UNIT_MAX_ATTEMPTS}::int, NULL, NULL, NULL)::graphile_worker.job_spec
          FROM jsonb_array_elements(${JSON.stringify(payloads)}::jsonb) WITH ORDINALITY AS p(payload, n)
         ORDER BY n))`;
    return id;
  });
}

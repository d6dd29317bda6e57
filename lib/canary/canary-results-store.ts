import { z } from "zod";
import type { Db } from "../db/prisma";
import type { Prisma } from "../generated/prisma/client";
import { CANARY_CONDITIONS, CANARY_SURFACES, canaryConfigSchema, expectedCanaryResults, type CanaryCondition } from "./config";
import type { CanaryTrialResult } from "./trial";
import { rowsOf } from "../db/rows";

/** Whether every surface of the trial is stored: a retried job whose earlier attempt committed does nothing. */
export async function canaryTrialStored(db: Db, experimentId: string, condition: CanaryCondition, trial: number): Promise<boolean> {
  const stored = await db.canaryResult.count({ where: { experimentId, condition, trial } });
  return stored >= CANARY_SURFACES.length;
}

/** Stores a trial's surfaces, once: a row already there for (experiment, condition, trial, surface) is kept as it is. */
export async function saveCanaryTrial(
  db: Db,
  experimentId: string,
  condition: CanaryCondition,
  trial: number,
  result: CanaryTrialResult,
): Promise<void> {
  await db.canaryResult.createMany({
    data: result.surfaces.map((s) => ({
      experimentId,
      condition,
      trial,
      surface: s.surface,
      canary: result.canary,
      planted: s.planted as unknown as Prisma.InputJsonValue,
      found: s.found,
      evidence: s.evidence as unknown as Prisma.InputJsonValue,
      reset: (result.reset ?? undefined) as unknown as Prisma.InputJsonValue | undefined,
      expectedFound: s.expectedFound,
      held: s.held,
    })),
    skipDuplicates: true,
  });
}

/**
 * Completes a canary experiment once every (condition, trial, surface) is stored; the row lock makes
 * the last two trials agree on who completes it. An expectation that did not hold is a finding the
 * page shows (held n/N), not a failure of the experiment.
 */
export async function completeCanaryExperimentIfDone(db: Db, experimentId: string): Promise<void> {
  await db.$transaction(async (tx) => {
    const [row] = rowsOf(
      z.object({ state: z.string(), config: z.unknown(), started_at: z.date().nullable(), created_at: z.date() }),
      await tx.$queryRaw`
      SELECT state, config, started_at, created_at FROM experiments WHERE id = ${experimentId}::uuid FOR UPDATE`,
    );
    if (!row || (row.state !== "queued" && row.state !== "running")) return;
    const stored = await tx.canaryResult.count({ where: { experimentId } });
    if (stored < expectedCanaryResults(canaryConfigSchema.parse(row.config))) return;
    const finishedAt = new Date();
    await tx.experiment.update({
      where: { id: experimentId },
      data: { state: "completed", finishedAt, wallMs: finishedAt.getTime() - (row.started_at ?? row.created_at).getTime() },
    });
  });
}

const count = z.coerce.number().int();
export const canarySurfaceResultSchema = z.object({
  condition: z.enum(CANARY_CONDITIONS),
  surface: z.enum(CANARY_SURFACES),
  /** Trials stored for this condition and surface (each planted once). */
  trials: count,
  found: count,
  expectedFound: z.boolean(),
  held: count,
  /** What A planted that this surface could show, in the first trial. */
  planted: z.unknown(),
  /** The service's answer that shows the canary (the first trial that found it), else what the first trial searched. */
  evidence: z.unknown(),
});
export type CanarySurfaceResult = z.infer<typeof canarySurfaceResultSchema>;

export const canaryResultsSchema = z.object({
  experimentId: z.string(),
  conditions: z.array(z.enum(CANARY_CONDITIONS)),
  trials: z.number().int(),
  surfaces: z.array(canarySurfaceResultSchema),
  /** Over every stored (condition, trial, surface): how many met the expectation. */
  held: z.object({ n: count, N: count }),
});
export type CanaryResults = z.infer<typeof canaryResultsSchema>;

/** The canary results per condition and surface, counted in SQL; null when the experiment is not a canary experiment. */
export async function canaryResults(db: Db, experimentId: string): Promise<CanaryResults | null> {
  const experiment = await db.experiment.findUnique({ where: { id: experimentId }, select: { kind: true, config: true } });
  if (!experiment || experiment.kind !== "canary") return null;
  const config = canaryConfigSchema.parse(experiment.config);
  const rows = await db.$queryRaw`
    SELECT condition, surface, count(*) AS trials, count(*) FILTER (WHERE found) AS found, bool_and(expected_found) AS "expectedFound",
           count(*) FILTER (WHERE held) AS held,
           (array_agg(planted ORDER BY trial))[1] AS planted,
           COALESCE((array_agg(evidence ORDER BY trial) FILTER (WHERE found))[1], (array_agg(evidence ORDER BY trial))[1]) AS evidence
      FROM canary_results WHERE experiment_id = ${experimentId}::uuid
     GROUP BY condition, surface`;
  const stored = z.array(canarySurfaceResultSchema).parse(rows);
  const order = (r: CanarySurfaceResult) =>
    CANARY_CONDITIONS.indexOf(r.condition) * CANARY_SURFACES.length + CANARY_SURFACES.indexOf(r.surface);
  const surfaces = stored.sort((x, y) => order(x) - order(y));
  return canaryResultsSchema.parse({
    experimentId,
    conditions: config.conditions,
    trials: config.trials,
    surfaces,
    held: { n: surfaces.reduce((sum, s) => sum + s.held, 0), N: surfaces.reduce((sum, s) => sum + s.trials, 0) },
  });
}

import { z } from "zod";
import type { Db } from "../db/prisma";
import { canaryConfigSchema } from "../canary/config";
import { replayConfigSchema } from "../replay/rules/config";
import { expectedRunCount } from "../replay/rules/grid";
import { experimentPageFacts, type ExperimentPageFacts } from "./read/experiment-facts";
import { EXPERIMENT_STATES } from "./experiment-schemas";

const int = z.coerce.number().int();

export const experimentStatusSchema = z.object({
  id: z.string(),
  /** replay (the paper's grid) | canary (the canary reset check: progress counts trials, not runs) */
  kind: z.enum(["replay", "canary"]),
  /** The name and notes people find it by (PATCH /api/v1/experiments/{id}); null when not given. */
  name: z.string().nullable(),
  notes: z.string().nullable(),
  state: z.enum(EXPERIMENT_STATES),
  error: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  /** Derived from stored runs, never from a counter: done/total runs. */
  progress: z.object({ done: int, total: int }),
  conditions: z.array(z.object({ condition: z.string(), done: int, total: int })),
});
export type ExperimentStatus = z.infer<typeof experimentStatusSchema>;

const storedPerCondition = z.array(z.object({ condition: z.string(), n: int }));

/** An experiment's state and its progress per condition, counted in SQL from the runs stored so far. */
export async function experimentStatus(db: Db, experimentId: string): Promise<ExperimentStatus | null> {
  const experiment = await experimentPageFacts(db, experimentId);
  return experiment ? experimentStatusOf(db, experiment) : null;
}

/** The status of an experiment whose row is read already (the experiment page's): its progress counted in SQL from the runs stored so far. */
export async function experimentStatusOf(db: Db, experiment: ExperimentPageFacts): Promise<ExperimentStatus> {
  const experimentId = experiment.id;
  const labels = {
    id: experiment.id,
    kind: experiment.kind,
    name: experiment.name,
    notes: experiment.notes,
    state: experiment.state,
    error: experiment.error,
    createdAt: experiment.createdAt.toISOString(),
    startedAt: experiment.startedAt?.toISOString() ?? null,
    finishedAt: experiment.finishedAt?.toISOString() ?? null,
  };
  if (experiment.kind === "canary") {
    const canary = canaryConfigSchema.parse(experiment.config);
    const trials = storedPerCondition.parse(
      await db.$queryRaw`SELECT condition, count(DISTINCT trial) AS n FROM canary_results WHERE experiment_id = ${experimentId}::uuid GROUP BY condition`,
    );
    const conditions = canary.conditions.map((condition) => ({
      condition,
      total: canary.trials,
      done: trials.find((t) => t.condition === condition)?.n ?? 0,
    }));
    return experimentStatusSchema.parse({
      ...labels,
      progress: { done: conditions.reduce((sum, c) => sum + c.done, 0), total: canary.trials * canary.conditions.length },
      conditions,
    });
  }
  const config = replayConfigSchema.parse(experiment.config);
  const stored = storedPerCondition.parse(
    // The runs' counts that triggers keep exact in every writer's transaction (run_summary_cells): the same as counting the runs, at any size.
    await db.$queryRaw`SELECT condition, sum(runs)::bigint AS n FROM run_summary_cells WHERE experiment_id = ${experimentId}::uuid GROUP BY condition HAVING sum(runs) > 0`,
  );
  const perCell = config.schedules * config.delaysMs.length * config.repetitions;
  const conditions = [
    ...config.finalityPolicies.map((condition) => ({ condition, total: perCell })),
    ...config.separationConditions.map((condition) => ({ condition, total: 2 * perCell })),
  ].map((c) => ({ ...c, done: stored.find((s) => s.condition === c.condition)?.n ?? 0 }));
  return experimentStatusSchema.parse({
    ...labels,
    progress: { done: conditions.reduce((sum, c) => sum + c.done, 0), total: expectedRunCount(config) },
    conditions,
  });
}

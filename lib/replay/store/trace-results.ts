// An experiment's results per replayed trace and per suite, aggregated in PostgreSQL: for each real
// task, how often a snapshot scorer's label (the endpoint's) differs from the terminal one at each
// delay, and how often run B of a shared-state pair was exposed to A's writes.
import { z } from "zod";
import type { Db } from "../../db/prisma";
import { countedSql } from "../rules/classification";
import { FINALITY_POLICIES, SEPARATION_CONDITIONS, replayConfigSchema } from "../rules/config";
import { disagreesSql } from "../rules/labels";
import { routedWrites } from "../rules/trace";
import type { TraceResults } from "../rules/summary-schema";

const int = z.coerce.number().int();
const cellRow = z.object({
  task_id: z.string(),
  test: z.enum(["finality", "separation"]),
  condition: z.string(),
  delay_ms: int,
  n: int,
  successes: int,
  disagreements: int,
  exposures: int,
});
const suiteRow = z.object({ suite: z.string(), delay_ms: int, tasks: int, tasks_mislabelled: int, trials: int, mislabelled: int });

const DISAGREES = disagreesSql();
const COUNTED = countedSql();

export async function experimentTraceResults(
  db: Db,
  experimentId: string,
  traces: ReadonlyArray<{ taskId: string; writes: number }>,
): Promise<TraceResults> {
  const [cells, suites] = await Promise.all([
    // Finality trials, and B of every pair (a pair is counted once).
    db.$queryRawUnsafe(
      `SELECT task_id, test, condition, delay_ms, count(*) FILTER (WHERE ${COUNTED}) AS n,
              count(*) FILTER (WHERE recorded_label = 'success') AS successes,
              count(*) FILTER (WHERE ${DISAGREES}) AS disagreements,
              count(*) FILTER (WHERE exposure) AS exposures
         FROM runs WHERE experiment_id = $1::uuid AND (test = 'finality' OR role = 'B')
        GROUP BY task_id, test, condition, delay_ms ORDER BY task_id, test, condition, delay_ms`,
      experimentId,
    ),
    db.$queryRawUnsafe(
      `WITH per_task AS (
         SELECT split_part(task_id, '/', 1) AS suite, task_id, delay_ms, count(*) FILTER (WHERE ${COUNTED}) AS trials, count(*) FILTER (WHERE ${DISAGREES}) AS mislabelled
           FROM runs WHERE experiment_id = $1::uuid AND test = 'finality' AND condition = 'snapshot'
          GROUP BY task_id, delay_ms)
       SELECT suite, delay_ms, count(*) AS tasks, count(*) FILTER (WHERE mislabelled > 0) AS tasks_mislabelled, sum(trials) AS trials, sum(mislabelled) AS mislabelled
         FROM per_task GROUP BY suite, delay_ms ORDER BY suite, delay_ms`,
      experimentId,
    ),
  ]);
  const rows = z.array(cellRow).parse(cells);
  return {
    traces: traces.map(({ taskId, writes }) => {
      const mine = rows.filter((r) => r.task_id === taskId);
      return {
        taskId,
        suite: taskId.split("/")[0]!,
        writes,
        finality: FINALITY_POLICIES.flatMap((policy) =>
          mine
            .filter((r) => r.test === "finality" && r.condition === policy)
            .map((r) => ({ policy, delayMs: r.delay_ms, trials: r.n, successes: r.successes, disagreements: r.disagreements })),
        ),
        separation: SEPARATION_CONDITIONS.flatMap((condition) =>
          mine
            .filter((r) => r.test === "separation" && r.condition === condition)
            .map((r) => ({ condition, delayMs: r.delay_ms, pairs: r.n, exposures: r.exposures })),
        ),
      };
    }),
    suites: z
      .array(suiteRow)
      .parse(suites)
      .map((r) => ({
        suite: r.suite,
        delayMs: r.delay_ms,
        tasks: r.tasks,
        tasksMislabelled: r.tasks_mislabelled,
        trials: r.trials,
        mislabelled: r.mislabelled,
      })),
  };
}

/** The per-trace results of a stored replay experiment, from its config's traces; null when there is no such experiment, or it is a canary experiment. */
export async function storedExperimentTraceResults(db: Db, experimentId: string): Promise<TraceResults | null> {
  const experiment = await db.experiment.findUnique({ where: { id: experimentId }, select: { kind: true, config: true } });
  // A canary experiment replays no trace (its config is not a replay's): no results, as for no experiment.
  if (!experiment || experiment.kind !== "replay") return null;
  const config = replayConfigSchema.parse(experiment.config);
  return experimentTraceResults(
    db,
    experimentId,
    config.traces.map((t) => ({ taskId: t.taskId, writes: routedWrites(t).length })),
  );
}

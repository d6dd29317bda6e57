import { z } from "zod";
import type { Db } from "../db/prisma";
import { replayConfigSchema } from "./config";
import { expectedRunCount } from "./grid";

const int = z.coerce.number().int();

/** The grid part of a stored config; read forgivingly so that one odd row cannot break the list. */
const gridSchema = z.object({ delaysMs: z.array(z.number()), schedules: z.number(), repetitions: z.number() });

const row = z.object({
  id: z.string(),
  created_at: z.coerce.date(),
  state: z.string(),
  config: z.unknown(),
  stored_runs: int,
  finality_trials: int,
  disagreements: int,
  pairs: int,
  exposures: int,
});

export interface ExperimentListItem {
  id: string;
  createdAt: Date;
  state: string;
  /** null when the stored config has no readable grid */
  grid: z.infer<typeof gridSchema> | null;
  /** Runs stored so far, and how many its grid has (null when the stored config is unreadable). */
  storedRuns: number;
  totalRuns: number | null;
  /** Finality trials of every policy whose endpoint label differs from the terminal label. */
  disagreements: number;
  finalityTrials: number;
  /** Separation pairs of every condition where A's write changed the value scored in B. */
  exposures: number;
  pairs: number;
}

/** The newest experiments with their headline counts, aggregated in PostgreSQL from the run summary tables. */
export async function listExperiments(db: Db, options: { limit: number }): Promise<ExperimentListItem[]> {
  const limit = Math.max(1, Math.min(options.limit, 200));
  const rows = await db.$queryRaw`
    WITH recent AS (
      SELECT id, created_at, state, config FROM experiments ORDER BY created_at DESC, id DESC LIMIT ${limit}
    )
    SELECT recent.id::text AS id, recent.created_at, recent.state, recent.config, counts.*
      FROM recent
     CROSS JOIN LATERAL (
       -- From the trigger-maintained summary (migration run_summary), not a scan of every run.
       SELECT coalesce(sum(runs), 0) AS stored_runs,
              coalesce(sum(runs) FILTER (WHERE test = 'finality'), 0) AS finality_trials,
              coalesce(sum(disagreements) FILTER (WHERE test = 'finality'), 0) AS disagreements,
              (SELECT coalesce(sum(groups), 0) FROM run_summary_group_counts g WHERE g.experiment_id = recent.id AND g.test = 'separation') AS pairs,
              coalesce(sum(exposures) FILTER (WHERE test = 'separation' AND role = 'B'), 0) AS exposures
         FROM run_summary_cells c WHERE c.experiment_id = recent.id
     ) AS counts
     ORDER BY recent.created_at DESC, recent.id DESC`;
  return z.array(row).parse(rows).map((r) => {
    const grid = gridSchema.safeParse(r.config);
    const config = replayConfigSchema.safeParse(r.config);
    return {
      storedRuns: r.stored_runs,
      totalRuns: config.success ? expectedRunCount(config.data) : null,
      id: r.id,
      createdAt: r.created_at,
      state: r.state,
      grid: grid.success ? grid.data : null,
      disagreements: r.disagreements,
      finalityTrials: r.finality_trials,
      exposures: r.exposures,
      pairs: r.pairs,
    };
  });
}

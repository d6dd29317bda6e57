import { z } from "zod";
import type { Db } from "../db/prisma";
import { Prisma } from "../generated/prisma/client";
import { encodeCursor, likeContaining } from "../http/pagination";
import { replayConfigSchema } from "../replay/rules/config";
import { sweepInterruptedExperiments } from "../replay/run/in-process-runner";
import { expectedRunCount } from "../replay/rules/grid";
import { EXPERIMENT_KINDS, type ExperimentKind, type ExperimentListQuery } from "./experiment-schemas";

const int = z.coerce.number().int();

/** A finality cell the experiment page's headline counts: an asynchronous policy at a nonzero delay. */
const ASYNC_NONZERO = Prisma.sql`test = 'finality' AND delay_ms > 0 AND left(condition, 5) <> 'sync_'`;

/** The grid part of a stored config; read forgivingly so that one odd row cannot break the list. */
const gridSchema = z.object({ delaysMs: z.array(z.number()), schedules: z.number(), repetitions: z.number() });

const row = z.object({
  id: z.string(),
  created_at: z.coerce.date(),
  name: z.string().nullable(),
  notes: z.string().nullable(),
  state: z.string(),
  kind: z.enum(EXPERIMENT_KINDS),
  config: z.unknown(),
  stored_runs: int,
  finality_trials: int,
  disagreements: int,
  async_disagreements: int,
  async_trials: int,
  pairs: int,
  exposures: int,
});

export interface ExperimentListItem {
  id: string;
  createdAt: Date;
  name: string | null;
  notes: string | null;
  state: string;
  /** replay (the paper's grid) or canary (the canary reset check, which has no grid and no runs) */
  kind: ExperimentKind;
  /** null when the stored config has no readable grid */
  grid: z.infer<typeof gridSchema> | null;
  /** Runs stored so far, and how many its grid has (null when the stored config is unreadable). */
  storedRuns: number;
  totalRuns: number | null;
  /** Finality trials of every policy whose endpoint label differs from the terminal label. */
  disagreements: number;
  finalityTrials: number;
  /**
   * The same over the experiment page's headline population, asynchronous policies at a nonzero
   * delay (a synchronous policy or a zero delay cannot disagree): the list shows this one.
   */
  asyncDisagreements: number;
  asyncTrials: number;
  /** Separation pairs of every condition where A's write changed the value scored in B. */
  exposures: number;
  pairs: number;
}

export interface ExperimentPage {
  experiments: ExperimentListItem[];
  /** Pass as `cursor` for the next page; null on the last. */
  nextCursor: string | null;
}

/**
 * One page of experiments, newest first, with their headline counts aggregated in PostgreSQL from
 * the run summary tables; filtered by state and by a part of the name, paged by (created_at, id).
 * Experiments whose in-process replay is gone are marked interrupted first.
 */
export async function listExperiments(
  db: Db,
  query: Pick<ExperimentListQuery, "state" | "name" | "cursor" | "limit">,
): Promise<ExperimentPage> {
  // An in-process replay killed by SIGKILL could not mark its experiment: the list shows it interrupted, not running.
  await sweepInterruptedExperiments(db);
  const limit = Math.max(1, Math.min(query.limit, 500));
  const conditions: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (query.state) conditions.push(Prisma.sql`state = ${query.state}`);
  if (query.name) conditions.push(Prisma.sql`name ILIKE ${likeContaining(query.name)}`);
  if (query.cursor) conditions.push(Prisma.sql`(created_at, id) < (${new Date(query.cursor[0])}::timestamptz, ${query.cursor[1]}::uuid)`);
  const rows = await db.$queryRaw`
    WITH page AS (
      SELECT id, created_at, name, notes, state, kind, config FROM experiments
       WHERE ${Prisma.join(conditions, " AND ")}
       ORDER BY created_at DESC, id DESC LIMIT ${limit + 1}
    )
    SELECT page.id::text AS id, page.created_at, page.name, page.notes, page.state, page.kind, page.config, counts.*
      FROM page
     CROSS JOIN LATERAL (
       -- From the trigger-maintained summary (migration run_summary), not a scan of every run.
       SELECT coalesce(sum(runs), 0) AS stored_runs,
              coalesce(sum(runs) FILTER (WHERE test = 'finality'), 0) AS finality_trials,
              coalesce(sum(disagreements) FILTER (WHERE test = 'finality'), 0) AS disagreements,
              -- The headline's population (the experiment page's): asynchronous policies at a nonzero delay.
              coalesce(sum(disagreements) FILTER (WHERE ${ASYNC_NONZERO}), 0) AS async_disagreements,
              coalesce(sum(runs) FILTER (WHERE ${ASYNC_NONZERO}), 0) AS async_trials,
              (SELECT coalesce(sum(groups), 0) FROM run_summary_group_counts g WHERE g.experiment_id = page.id AND g.test = 'separation') AS pairs,
              coalesce(sum(exposures) FILTER (WHERE test = 'separation' AND role = 'B'), 0) AS exposures
         FROM run_summary_cells c WHERE c.experiment_id = page.id
     ) AS counts
     ORDER BY page.created_at DESC, page.id DESC`;
  const items = z
    .array(row)
    .parse(rows)
    .map((r): ExperimentListItem => {
      const grid = gridSchema.safeParse(r.config);
      const config = replayConfigSchema.safeParse(r.config);
      return {
        id: r.id,
        createdAt: r.created_at,
        name: r.name,
        notes: r.notes,
        state: r.state,
        kind: r.kind,
        grid: grid.success ? grid.data : null,
        storedRuns: r.stored_runs,
        totalRuns: config.success ? expectedRunCount(config.data) : null,
        disagreements: r.disagreements,
        finalityTrials: r.finality_trials,
        asyncDisagreements: r.async_disagreements,
        asyncTrials: r.async_trials,
        exposures: r.exposures,
        pairs: r.pairs,
      };
    });
  const shown = items.slice(0, limit);
  const last = shown.at(-1);
  return { experiments: shown, nextCursor: items.length > limit && last ? encodeCursor([last.createdAt.toISOString(), last.id]) : null };
}

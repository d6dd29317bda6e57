import { z } from "zod";
import type { Db } from "../../db/prisma";
import { rowsOf } from "../../db/rows";

const factsRow = z.object({
  id: z.string(),
  kind: z.string(),
  name: z.string().nullable(),
  notes: z.string().nullable(),
  created_at: z.date(),
  started_at: z.date().nullable(),
  finished_at: z.date().nullable(),
  state: z.string(),
  error: z.string().nullable(),
  wall_ms: z.number().nullable(),
  config: z.unknown(),
  exclusion_rule_version: z.number().int(),
});

/**
 * The experiment's row as the experiment page uses it: its header and report show it, and its results
 * cache and progress are read from it (lib/experiments/cached-summary.ts, progress.ts) rather than
 * each reading the row again.
 */
export interface ExperimentPageFacts {
  id: string;
  kind: string;
  name: string | null;
  notes: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  state: string;
  error: string | null;
  wallMs: number | null;
  config: unknown;
  exclusionRuleVersion: number;
}

/** One row, in raw SQL: the page asks on every request, and Prisma compiles a model query on every call (~0.5 ms of CPU). Null when there is none. */
export async function experimentPageFacts(db: Db, experimentId: string): Promise<ExperimentPageFacts | null> {
  const [row] = rowsOf(
    factsRow,
    await db.$queryRaw`SELECT id::text AS id, kind, name, notes, created_at, started_at, finished_at, state, error, wall_ms, config,
                              exclusion_rule_version
                         FROM experiments WHERE id = ${experimentId}::uuid`,
  );
  if (!row) return null;
  const { created_at, started_at, finished_at, wall_ms, exclusion_rule_version, ...rest } = row;
  return {
    ...rest,
    createdAt: created_at,
    startedAt: started_at,
    finishedAt: finished_at,
    wallMs: wall_ms,
    exclusionRuleVersion: exclusion_rule_version,
  };
}

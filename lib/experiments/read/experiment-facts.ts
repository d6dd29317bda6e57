import { z } from "zod";
import type { Db } from "../../db/prisma";
import { rowsOf } from "../../db/rows";

const factsRow = z.object({
  id: z.string(),
  kind: z.string(),
  name: z.string().nullable(),
  notes: z.string().nullable(),
  created_at: z.date(),
  finished_at: z.date().nullable(),
  state: z.string(),
  error: z.string().nullable(),
  wall_ms: z.number().nullable(),
  config: z.unknown(),
});

/** What the experiment page's header and report show of the experiment itself, or null when there is none. */
export interface ExperimentPageFacts {
  id: string;
  kind: string;
  name: string | null;
  notes: string | null;
  createdAt: Date;
  finishedAt: Date | null;
  state: string;
  error: string | null;
  wallMs: number | null;
  config: unknown;
}

/** One row, in raw SQL: the page asks on every request, and Prisma compiles a model query on every call (~0.5 ms of CPU). */
export async function experimentPageFacts(db: Db, experimentId: string): Promise<ExperimentPageFacts | null> {
  const [row] = rowsOf(
    factsRow,
    await db.$queryRaw`SELECT id::text AS id, kind, name, notes, created_at, finished_at, state, error, wall_ms, config
                         FROM experiments WHERE id = ${experimentId}::uuid`,
  );
  if (!row) return null;
  const { created_at, finished_at, wall_ms, ...rest } = row;
  return { ...rest, createdAt: created_at, finishedAt: finished_at, wallMs: wall_ms };
}

import { z } from "zod";
import type { Db } from "../../db/prisma";
import { Prisma } from "../../generated/prisma/client";
import { encodeCursor, likeContaining } from "../../http/pagination";
import type { EvaluationListQuery } from "./read-boundary";

const int = z.coerce.number().int();
const row = z.object({
  id: z.string(),
  created_at: z.coerce.date(),
  name: z.string(),
  harness: z.string().nullable(),
  benchmark: z.string().nullable(),
  effect_policy_version: int,
  runs: int,
  unscored: int,
  reported_successes: int,
  final_n: int,
  final_successes: int,
  unresolved: int,
});

export interface EvaluationListItem {
  id: string;
  createdAt: Date;
  name: string;
  harness: string | null;
  benchmark: string | null;
  effectPolicyVersion: number;
  /** Every stored run, unscored ones included. */
  runs: number;
  /** Runs the harness recorded no score for: in no rate's population. */
  unscored: number;
  /** All scored runs, as reported. */
  reported: { successes: number; n: number };
  /** Final runs only. */
  final: { successes: number; n: number };
  unresolved: number;
}

export interface EvaluationPage {
  evaluations: EvaluationListItem[];
  /** Pass as `cursor` for the next page; null on the last. */
  nextCursor: string | null;
}

/** One page of evaluations, newest first, with their headline counts aggregated in PostgreSQL; filtered by a part of the name, paged by (created_at, id). */
export async function listEvaluations(db: Db, query: Pick<EvaluationListQuery, "name" | "cursor" | "limit">): Promise<EvaluationPage> {
  const conditions: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (query.name) conditions.push(Prisma.sql`name ILIKE ${likeContaining(query.name)}`);
  if (query.cursor) conditions.push(Prisma.sql`(created_at, id) < (${new Date(query.cursor[0])}::timestamptz, ${query.cursor[1]}::uuid)`);
  const rows = await db.$queryRaw`
    WITH page AS (
      SELECT id, created_at, name, harness, benchmark, effect_policy_version FROM evaluations
       WHERE ${Prisma.join(conditions, " AND ")}
       ORDER BY created_at DESC, id DESC LIMIT ${query.limit + 1}
    )
    SELECT page.id::text AS id, page.created_at, page.name, page.harness, page.benchmark, page.effect_policy_version, counts.*
      FROM page CROSS JOIN LATERAL (
        -- From the trigger-maintained counts (migration evaluation_run_counts), not a scan of every run.
        SELECT coalesce(sum(n), 0) AS runs,
               coalesce(sum(n) FILTER (WHERE finality = 'unscored'), 0) AS unscored,
               coalesce(sum(n) FILTER (WHERE endpoint_label = 'success'), 0) AS reported_successes,
               coalesce(sum(n) FILTER (WHERE finality = 'final'), 0) AS final_n,
               coalesce(sum(n) FILTER (WHERE finality = 'final' AND endpoint_label = 'success'), 0) AS final_successes,
               coalesce(sum(n) FILTER (WHERE finality = 'unresolved'), 0) AS unresolved
          FROM evaluation_run_counts c WHERE c.evaluation_id = page.id) AS counts
     ORDER BY page.created_at DESC, page.id DESC`;
  const items = z
    .array(row)
    .parse(rows)
    .map((r): EvaluationListItem => ({
      id: r.id,
      createdAt: r.created_at,
      name: r.name,
      harness: r.harness,
      benchmark: r.benchmark,
      effectPolicyVersion: r.effect_policy_version,
      runs: r.runs,
      unscored: r.unscored,
      reported: { successes: r.reported_successes, n: r.runs - r.unscored },
      final: { successes: r.final_successes, n: r.final_n },
      unresolved: r.unresolved,
    }));
  const shown = items.slice(0, query.limit);
  const last = shown.at(-1);
  return {
    evaluations: shown,
    nextCursor: items.length > query.limit && last ? encodeCursor([last.createdAt.toISOString(), last.id]) : null,
  };
}

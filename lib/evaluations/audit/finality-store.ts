// Finality as stored: recomputed from a run's effects and every resolution appended for them (a late
// resolution, a new policy version), in SQL. Ingestion audits a new run's finality from its record (ingest/rows.ts).
import { z } from "zod";
import { Prisma } from "../../generated/prisma/client";
import { toolClassifier } from "../policy";
import type { EffectPolicy } from "../effect-policy-schema";
import { onlyRowOf } from "../../db/rows";
import { unnestRows } from "../../db/unnest-rows";
import type { Tx } from "./lock";

const TERMINAL = ["completed", "failed", "cancelled"];
/** Past every run id: the upper end of an evaluation's keys. */
export const MAX_RUN_ID = "9223372036854775807";

/**
 * Recomputes the finality of stored runs from their effects and every resolution appended for them,
 * under `policy` (version `version`): the runs named, or every run of the evaluation, CHUNK runs a
 * statement. The rule is auditFinality's (lib/evaluations/finality.ts: openReason per effect, the
 * earliest open one by request time, then id) written in SQL, so that no run's effects are read into this process (its cost a run:
 * docs/benchmarks.md); only the changed runs' new columns come back, written by a statement of their own. The tools' classes come
 * from the policy's own classifier (its patterns), passed in; the caller holds what keeps new effects
 * out meanwhile (the policy's row lock, or the evaluation's audit lock). Effect ids tie-break in code
 * point order (COLLATE "C"), the rule's JavaScript order for every id without characters past U+FFFF.
 * lib/testing/finality-reference.ts is the rule applied in JavaScript, which this must equal (its test).
 * A run whose finality does not change is not written: its audit_policy_version stays the version its
 * columns were written under; every figure is under the evaluation's current version (the export says so).
 */
export async function recomputeFinality(
  tx: Tx,
  evaluationId: string,
  policy: { version: number; policy: EffectPolicy },
  runIds: readonly string[] | "all",
): Promise<void> {
  const ids = runIds === "all" ? null : runIds;
  const tools = await effectTools(tx, evaluationId, ids);
  for (let after = "0"; ;) {
    const [chunk] = finalityChunkResult.parse(
      await underFixedPlan(tx, () => tx.$queryRaw(finalityChunkStatement(evaluationId, policy.policy, tools, after, ids))),
    );
    // Written by a statement of its own, outside the switches: the runs' triggers would be planned under them too.
    if (chunk.changed.length > 0) await tx.$executeRaw(finalityWrite(policy.version, chunk.changed));
    if (chunk.runs < FINALITY_CHUNK || chunk.last === null) return;
    after = chunk.last;
  }
}

const changedRun = z.object({
  id: z.string(),
  finality: z.string(),
  reason: z.string().nullable(),
  effect_id: z.string().nullable(),
  tool: z.string().nullable(),
  basis: z.string().nullable(),
});
const finalityChunkResult = z.tuple([z.object({ runs: z.number(), last: z.string().nullable(), changed: z.array(changedRun) })]);

/**
 * One chunk of recomputeFinality (run it underFixedPlan): the next runs after `after` audited, with the
 * columns of those whose finality changes. Only those are written: rewriting a run (its row, every
 * index, the count triggers' transition tables) is most of a recompute where few runs change.
 */
export function finalityChunkStatement(
  evaluationId: string,
  policy: EffectPolicy,
  tools: readonly string[],
  after: string,
  ids: readonly string[] | null,
): Prisma.Sql {
  return Prisma.sql`
    WITH ${auditedChunk(evaluationId, policy, tools, after, ids)}
    SELECT (SELECT count(*)::int FROM chunk) AS runs, (SELECT max(id)::text FROM chunk) AS last,
           coalesce((SELECT json_agg(json_build_object('id', id::text, 'finality', finality, 'reason', reason, 'effect_id', effect_id,
                                                       'tool', tool, 'basis', basis))
                       FROM audited WHERE changed), '[]') AS changed`;
}

/**
 * The changed runs' finality written, under `version`, each run found by its key; the range of their ids
 * bounds any other plan (none reads another evaluation's runs past them, whatever the statistics say).
 */
export function finalityWrite(version: number, changed: readonly z.infer<typeof changedRun>[]): Prisma.Sql {
  const ids = changed.map((run) => BigInt(run.id));
  const [first, last] = ids.reduce(([lo, hi], id) => [id < lo ? id : lo, id > hi ? id : hi], [ids[0]!, ids[0]!]);
  const columns = { id: "bigint", finality: "text", reason: "text", effect_id: "text", tool: "text", basis: "text" } as const;
  return Prisma.sql`
    UPDATE evaluation_runs r
       SET finality = x.finality, unresolved_reason = x.reason, unresolved_effect_id = x.effect_id, unresolved_tool = x.tool,
           finality_basis = x.basis, audit_policy_version = ${version}
      FROM ${unnestRows(changed, columns)}
     WHERE r.id = x.id AND r.id BETWEEN ${first.toString()}::bigint AND ${last.toString()}::bigint`;
}

/**
 * Runs `run`'s statements (in the caller's transaction) under planner switches that keep their plans'
 * shape whatever the statistics say, then puts the switches back as they were. After a bulk load the
 * statistics may hold none of an evaluation's runs, and the planner, taking a chunk for one run, chose
 * by index size. No sort: an ordered walk of an evaluation's keys (scoredRunRange) is then served by
 * the (evaluation_id, id) index alone, not by another index and a sort of every run of the evaluation;
 * an aggregate's ORDER BY sorts its own rows (not a backward walk of a primary key for its order). No
 * hash or merge join: every join probes an index by key. No sequential or bitmap scan. Only for
 * statements that fire no trigger of their own (reads, writes to the recompute's tables): a trigger's
 * statements would be planned under the switches too, and their plans kept for the connection.
 */
export async function underFixedPlan<T>(tx: Tx, run: () => Promise<T>): Promise<T> {
  const { before } = onlyRowOf(
    z.object({ before: z.array(z.string()) }),
    await tx.$queryRaw`SELECT ARRAY(SELECT current_setting(name) FROM unnest(${FIXED_PLAN_SWITCHES}::text[]) WITH ORDINALITY AS s(name, n) ORDER BY n) AS before`,
  );
  await tx.$executeRaw`SELECT set_config(name, 'off', true) FROM unnest(${FIXED_PLAN_SWITCHES}::text[]) AS s(name)`;
  const result = await run();
  await tx.$executeRaw`SELECT set_config(name, value, true) FROM unnest(${FIXED_PLAN_SWITCHES}::text[], ${before}::text[]) AS s(name, value)`;
  return result;
}

const FIXED_PLAN_SWITCHES = [
  "enable_sort",
  "enable_incremental_sort",
  "enable_presorted_aggregate",
  "enable_hashjoin",
  "enable_mergejoin",
  "enable_seqscan",
  "enable_bitmapscan",
];

/**
 * Runs one statement audits at most: a statement over every run of a large evaluation held its snapshot
 * and memory for minutes, and a chunk of 50,000 took 0.9-1.6 s at a load of 4-5 on two cores (a chunk takes 1 s at most).
 */
export const FINALITY_CHUNK = 25_000;

/** How many runs a chunk took, and the last run id of it (the next chunk starts after it). */
export const chunkResult = z.tuple([z.object({ runs: z.number(), last: z.string().nullable() })]);

/**
 * The tools of the evaluation's effects (of the runs named, or of all): the classifier's patterns are
 * applied to each in JavaScript. All of them come from the counts the effects' triggers keep in the
 * writers' transactions (evaluation_tool_counts), not a scan of every effect (a million at 1,000,000 runs).
 */
export async function effectTools(tx: Tx, evaluationId: string, ids: readonly string[] | null): Promise<string[]> {
  const [{ tools }] = z
    .tuple([z.object({ tools: z.array(z.string()) })])
    .parse(
      ids === null
        ? await tx.$queryRaw`SELECT ARRAY(SELECT tool FROM evaluation_tool_counts WHERE evaluation_id = ${evaluationId}::uuid AND effects > 0) AS tools`
        : await tx.$queryRaw`SELECT ARRAY(SELECT DISTINCT tool FROM evaluation_effects WHERE run_id = ANY(${ids}::bigint[])) AS tools`,
    );
  return tools;
}

/**
 * The CTEs `chunk` (the next `limit` scored runs after run id `after`, of those named or of
 * all) and `audited` (each one's finality columns under `policy`, and `changed`: whether they differ
 * from the run's stored ones), for a statement to write where it needs them. Run it underFixedPlan.
 *
 * Its plan must not depend on the statistics: after a bulk load they may hold none of the evaluation's
 * runs (the planner took the chunk for one run, and read it through whichever index on evaluation_id was
 * smallest: every run of the evaluation, then a sort), or mostly another evaluation's. So the chunk is
 * the next range of the evaluation's own keys (scoredRunRange), and each run's effects are judged by a
 * LATERAL aggregate probed by its id: joined as sets, the chunk and its judged effects met in a nested
 * loop of two CTE scans when the chunk was estimated at one run (50,000 × 50,000 comparisons: minutes).
 */
export function auditedChunk(
  evaluationId: string,
  policy: EffectPolicy,
  tools: readonly string[],
  after: string,
  ids: readonly string[] | null,
  limit = FINALITY_CHUNK,
): Prisma.Sql {
  const classOf = toolClassifier(policy);
  const columns = Prisma.sql`id, scored_at, finality, unresolved_reason, unresolved_effect_id, unresolved_tool, finality_basis, harness_design, content_hash`;
  // Runs named: probed by their ids (the primary key, in its order), at most as many as named.
  const runs =
    ids === null
      ? scoredRunRange(evaluationId, columns, Prisma.sql`${after}::bigint`, Prisma.sql`${MAX_RUN_ID}::bigint`)
      : Prisma.sql`SELECT ${columns} FROM evaluation_runs
                    WHERE evaluation_id = ${evaluationId}::uuid AND id > ${after}::bigint AND id = ANY(${ids}::bigint[]) AND scored_at IS NOT NULL
                    ORDER BY id`;
  return Prisma.sql`chunk AS (
          -- An unscored run has no scoring time to audit at: it stays unscored under every policy.
          ${runs} LIMIT ${limit}
        ), classes AS MATERIALIZED (
          -- Made once, not again for every run.
          SELECT * FROM unnest(${tools}::text[], ${tools.map(classOf)}::text[]) AS c(tool, cls)
        ), fresh AS (
          SELECT chunk.id, CASE WHEN j.opened IS NULL THEN 'final' ELSE 'unresolved' END AS finality,
                 j.opened[1][1] AS reason, j.opened[1][2] AS effect_id, j.opened[1][3] AS tool,
                 CASE WHEN j.opened IS NOT NULL THEN NULL
                      WHEN NOT coalesce(j.by_status, false) AND coalesce(j.by_evidence, false) THEN 'recorded_evidence'
                      WHEN chunk.harness_design IS NOT NULL THEN 'harness_design'
                      WHEN coalesce(j.by_status, false) OR coalesce(j.by_class, false) THEN 'policy_class'
                      ELSE 'no_effects' END AS basis,
                 (chunk.finality, chunk.unresolved_reason, chunk.unresolved_effect_id, chunk.unresolved_tool, chunk.finality_basis) AS stored
            FROM chunk
           CROSS JOIN LATERAL (
             -- The run's effects, each judged: openReason (null for an effect closed at scoring or irrelevant, else why it
             -- was open) and how a closed one was closed (finalityBasis). One row a run: its open effects' reason, id and tool,
             -- the earliest by request time then id first (the one the rule names; one sort a run), and its closings.
             SELECT array_agg(ARRAY[x.reason, e.effect_id, e.tool] ORDER BY e.requested_at, e.effect_id COLLATE "C") FILTER (WHERE x.reason IS NOT NULL) AS opened,
                    bool_or(x.closed_by = 'status') AS by_status, bool_or(x.closed_by = 'evidence') AS by_evidence,
                    bool_or(x.closed_by = 'class') AS by_class
               FROM evaluation_effects e JOIN classes c ON c.tool = e.tool
               -- The evidence: the last resolution appended, as an aggregate (ORDER BY id DESC LIMIT 1 with no sort walks the key backwards).
              CROSS JOIN LATERAL (SELECT (array_agg(s.status ORDER BY s.id DESC))[1] AS status, (array_agg(s.at ORDER BY s.id DESC))[1] AS at
                                    FROM evaluation_effect_resolutions s WHERE s.run_id = e.run_id AND s.effect_id = e.effect_id) ev
              CROSS JOIN LATERAL (SELECT CASE
                   WHEN c.cls = 'read_only' THEN NULL
                   WHEN ev.status = ANY(${TERMINAL}::text[]) AND ev.at <= chunk.scored_at THEN NULL
                   WHEN c.cls = 'sync_confirmed' AND e.status_at_scoring = ANY(${TERMINAL}::text[]) THEN NULL
                   WHEN e.status_at_scoring = 'not_executed' AND ev.status IS NULL THEN NULL
                   WHEN c.cls = 'unclassified' THEN 'unclassified_tool'
                   WHEN c.cls = 'async_handle' AND e.handle IS NULL THEN 'unverifiable'
                   WHEN ev.status = ANY(${TERMINAL}::text[]) THEN 'resolved_after_scoring'
                   WHEN ev.status = 'unknown' OR e.status_at_scoring = 'unknown' THEN 'unverifiable'
                   WHEN e.status_at_scoring = 'pending' THEN 'pending_at_scoring'
                   ELSE 'never_resolved' END AS reason,
                 CASE
                   WHEN c.cls = 'read_only' THEN 'class'
                   WHEN ev.status = ANY(${TERMINAL}::text[]) AND ev.at <= chunk.scored_at THEN 'evidence'
                   WHEN c.cls = 'sync_confirmed' AND e.status_at_scoring = ANY(${TERMINAL}::text[]) THEN 'status'
                   ELSE 'not_run' END AS closed_by) x
              WHERE e.run_id = chunk.id) j
        ), audited AS (
          SELECT id, finality, reason, effect_id, tool, basis, stored IS DISTINCT FROM (finality, reason, effect_id, tool, basis) AS changed FROM fresh
        )`;
}

/**
 * A subquery: the `columns` of the evaluation's scored runs with ids in (`after`, `upTo`], in id order,
 * for a statement run underFixedPlan. The bounds are a row comparison in the order of the
 * (evaluation_id, id) index, which alone gives that order without a sort: the walk is the evaluation's
 * own keys from `after`, never the primary key through another evaluation's runs nor every run of this one.
 */
export function scoredRunRange(evaluationId: string, columns: Prisma.Sql, after: Prisma.Sql, upTo: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`SELECT ${columns} FROM evaluation_runs
                     WHERE (evaluation_id, id) > (${evaluationId}::uuid, ${after}) AND (evaluation_id, id) <= (${evaluationId}::uuid, ${upTo})
                       AND scored_at IS NOT NULL
                     ORDER BY evaluation_id, id`;
}

// Finality as stored: recomputed from a run's effects and every resolution appended for them (a late
// resolution, a new policy version), in SQL. Ingestion audits a new run's finality from its record (ingest/rows.ts).
import { z } from "zod";
import { Prisma } from "../../generated/prisma/client";
import { toolClassifier } from "../policy";
import type { EffectPolicy } from "../effect-policy-schema";
import type { Tx } from "./lock";

const TERMINAL = ["completed", "failed", "cancelled"];

/**
 * Recomputes the finality of stored runs from their effects and every resolution appended for them,
 * under `policy` (version `version`): the runs named, or every run of the evaluation, CHUNK runs a
 * statement. The rule is auditFinality's (lib/evaluations/finality.ts: openReason per effect, the
 * earliest open one by request time, then id) written in SQL, so that no run is read into this process (its cost a run: docs/benchmarks.md). The tools' classes come
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
    const [chunk] = chunkResult.parse(
      await tx.$queryRaw`
        WITH ${auditedChunk(evaluationId, policy.policy, tools, after, ids)}, updated AS (
          -- Only the runs whose finality changes are written: rewriting a run (its row, every index, the
          -- count triggers' transition tables) is most of a recompute where few runs change.
          UPDATE evaluation_runs r
             SET finality = a.finality, unresolved_reason = a.reason, unresolved_effect_id = a.effect_id, unresolved_tool = a.tool,
                 finality_basis = a.basis, audit_policy_version = ${policy.version}
            FROM audited a
           WHERE r.id = a.id AND a.changed
        )
        SELECT count(*)::int AS runs, max(id)::text AS last FROM chunk`,
    );
    if (chunk.runs < FINALITY_CHUNK || chunk.last === null) return;
    after = chunk.last;
  }
}

/** Runs one statement audits at most: a statement over every run of a large evaluation held its snapshot and memory for minutes. */
export const FINALITY_CHUNK = 50_000;

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
 * from the run's stored ones), for a statement to write where it needs them.
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
  // A chunk's effects as one range of the effects' key: joined to the chunk alone, the planner hashed every
  // effect of the table for each chunk.
  const effectsOfRange =
    ids === null ? Prisma.sql`AND e.run_id > ${after}::bigint AND e.run_id <= (SELECT max(id) FROM chunk)` : Prisma.empty;
  return Prisma.sql`chunk AS (
          -- An unscored run has no scoring time to audit at: it stays unscored under every policy.
          SELECT id, scored_at, finality, unresolved_reason, unresolved_effect_id, unresolved_tool, finality_basis, harness_design, content_hash
            FROM evaluation_runs
           WHERE evaluation_id = ${evaluationId}::uuid AND id > ${after}::bigint AND scored_at IS NOT NULL
             AND (${ids}::bigint[] IS NULL OR id = ANY(${ids}::bigint[]))
           ORDER BY id LIMIT ${limit}
        ), classes AS (
          SELECT * FROM unnest(${tools}::text[], ${tools.map(classOf)}::text[]) AS c(tool, cls)
        ), judged AS (
          -- openReason: null for an effect closed at scoring or irrelevant, else why it was open; and how a closed one was closed (finalityBasis).
          SELECT e.run_id, e.effect_id, e.tool, e.requested_at, x.reason, x.closed_by
            FROM chunk JOIN evaluation_effects e ON e.run_id = chunk.id JOIN classes c ON c.tool = e.tool
            -- The evidence: the last resolution appended.
            LEFT JOIN LATERAL (SELECT s.status, s.at FROM evaluation_effect_resolutions s
                                WHERE s.run_id = e.run_id AND s.effect_id = e.effect_id ORDER BY s.id DESC LIMIT 1) ev ON TRUE
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
           WHERE TRUE ${effectsOfRange}
        ), open_effects AS (
          SELECT DISTINCT ON (run_id) run_id, effect_id, tool, reason FROM judged WHERE reason IS NOT NULL
           ORDER BY run_id, requested_at, effect_id COLLATE "C"
        ), closings AS (
          SELECT run_id, bool_or(closed_by = 'status') AS by_status, bool_or(closed_by = 'evidence') AS by_evidence,
                 bool_or(closed_by = 'class') AS by_class
            FROM judged GROUP BY run_id
        ), fresh AS (
          SELECT chunk.id, CASE WHEN o.run_id IS NULL THEN 'final' ELSE 'unresolved' END AS finality, o.reason, o.effect_id, o.tool,
                 CASE WHEN o.run_id IS NOT NULL THEN NULL
                      WHEN NOT coalesce(k.by_status, false) AND coalesce(k.by_evidence, false) THEN 'recorded_evidence'
                      WHEN chunk.harness_design IS NOT NULL THEN 'harness_design'
                      WHEN coalesce(k.by_status, false) OR coalesce(k.by_class, false) THEN 'policy_class'
                      ELSE 'no_effects' END AS basis,
                 (chunk.finality, chunk.unresolved_reason, chunk.unresolved_effect_id, chunk.unresolved_tool, chunk.finality_basis) AS stored
            FROM chunk LEFT JOIN open_effects o ON o.run_id = chunk.id LEFT JOIN closings k ON k.run_id = chunk.id
        ), audited AS (
          SELECT id, finality, reason, effect_id, tool, basis, stored IS DISTINCT FROM (finality, reason, effect_id, tool, basis) AS changed FROM fresh
        )`;
}

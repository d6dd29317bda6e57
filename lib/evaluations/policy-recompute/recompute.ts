// A new effect-policy version applied in the background (docs/evaluations.md, A new policy version is a job). Saving it stores the
// version as pending (set-effect-policy.ts); this job computes every scored run's finality under it,
// one chunk a transaction, keeping the runs it changes (evaluation_recomputed_finality) and what each
// chunk saw (evaluation_recompute_chunks), without the audit's locks, so that
// ingestion goes on and every figure stays under the applied version; then one transaction applies
// it: under the evaluation's locks it computes again the runs the chunks could not see (stored or
// resolved since), writes the runs whose finality changes, derives again the touches of its surface
// templates when they changed (with the separation they decide), and makes the version current. A reader
// sees the old version's figures or the new one's, never a mix (read.ts checks a read's version).
import { z } from "zod";
import type { Db } from "../../db/prisma";
import { onlyRowOf } from "../../db/rows";
import { Prisma } from "../../generated/prisma/client";
import {
  auditedChunk,
  chunkResult,
  effectTools,
  FINALITY_CHUNK,
  MAX_RUN_ID,
  recomputeFinality,
  scoredRunRange,
  underFixedPlan,
} from "../audit/finality-store";
import { lockEvaluationAudit, type Tx } from "../audit/lock";
import { rederiveTouches } from "./derived-touches";
import { sameTemplates, toolClassifier } from "../policy";
import { recordImportedTraces, stateChangingTools, unlinkRunsWithOtherMarks } from "../record-traces/record-traces";
import { effectPolicySchema, type EffectPolicy } from "../effect-policy-schema";

/** A step's transaction: a chunk of 25,000 runs, or the apply at a million runs, on a loaded machine. */
const STEP_TRANSACTION = { timeout: 600_000, maxWait: 60_000 };

const pendingRow = z.object({
  version: z.number().int(),
  tools: z.unknown(),
  computed: z.boolean(),
  after_run_id: z.string(),
  resolution_high_water: z.string(),
});

const lockedPendingRows = z.array(z.object({ pending_policy_version: z.number().nullable() }));
const appliedPolicyRows = z.array(z.object({ version: z.number().int(), tools: z.unknown() }));

/** The pending version, its policy and its progress, or null when none is (or the evaluation is gone). */
async function pendingVersion(tx: Tx, evaluationId: string, lock: "none" | "update") {
  const rows =
    lock === "update" ? await tx.$queryRaw`SELECT pending_policy_version FROM evaluations WHERE id = ${evaluationId}::uuid FOR UPDATE` : [];
  if (lock === "update" && lockedPendingRows.parse(rows)[0]?.pending_policy_version == null) return null;
  const [row] = z.array(pendingRow).parse(
    await tx.$queryRaw`
      SELECT e.pending_policy_version AS version, p.tools, r.computed, r.after_run_id::text, r.resolution_high_water::text
        FROM evaluations e
        JOIN evaluation_effect_policies p ON p.evaluation_id = e.id AND p.version = e.pending_policy_version
        JOIN evaluation_policy_recomputes r ON r.evaluation_id = e.id AND r.version = e.pending_policy_version
       WHERE e.id = ${evaluationId}::uuid`,
  );
  return row ? { ...row, policy: effectPolicySchema.parse({ tools: row.tools }) } : null;
}

/** What one step did: computed a chunk, applied the version, or found nothing pending. */
export type RecomputeStep = "chunk" | "applied" | "idle";

/**
 * One step, in its own transaction: the next chunk of runs computed under the pending version, or,
 * once every chunk is, the version applied. Steps of one evaluation are serialised (an advisory
 * lock), so that two jobs for it (one running when a newer version was saved) share the work.
 */
export async function recomputeStep(db: Db, evaluationId: string, chunkRuns = FINALITY_CHUNK): Promise<RecomputeStep> {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`policy-recompute:${evaluationId}`}, 0))`;
    const pending = await pendingVersion(tx, evaluationId, "none");
    if (!pending) return "idle";
    if (!pending.computed) {
      await computeChunk(tx, evaluationId, pending, chunkRuns);
      return "chunk";
    }
    return (await applyVersion(tx, evaluationId, pending.version)) ? "applied" : "idle";
  }, STEP_TRANSACTION);
}

async function computeChunk(
  tx: Tx,
  evaluationId: string,
  pending: { version: number; policy: EffectPolicy; after_run_id: string },
  chunkRuns: number,
): Promise<void> {
  const tools = await effectTools(tx, evaluationId, null);
  const [chunk] = chunkResult.parse(await underFixedPlan(tx, () => tx.$queryRaw(chunkStatement(evaluationId, pending, tools, chunkRuns))));
  await tx.$executeRaw`
    UPDATE evaluation_policy_recomputes
       SET runs_done = runs_done + ${chunk.runs}, after_run_id = coalesce(${chunk.last}::bigint, after_run_id), computed = ${chunk.runs < chunkRuns}
     WHERE evaluation_id = ${evaluationId}::uuid AND version = ${pending.version}`;
}

/** A chunk's statement (run it underFixedPlan): its runs audited under the pending version, those it changes and what it saw kept. */
export function chunkStatement(
  evaluationId: string,
  pending: { version: number; policy: EffectPolicy; after_run_id: string },
  tools: readonly string[],
  chunkRuns: number,
): Prisma.Sql {
  return Prisma.sql`
    WITH ${auditedChunk(evaluationId, pending.policy, tools, pending.after_run_id, null, chunkRuns)}, stored AS (
      INSERT INTO evaluation_recomputed_finality
             (evaluation_id, version, run_id, finality, unresolved_reason, unresolved_effect_id, unresolved_tool, finality_basis)
      SELECT ${evaluationId}::uuid, ${pending.version}, id, finality, reason, effect_id, tool, basis FROM audited WHERE changed
    ), covered AS (
      INSERT INTO evaluation_recompute_chunks (evaluation_id, version, after_run_id, last_run_id, runs, content_xor)
      SELECT ${evaluationId}::uuid, ${pending.version}, ${pending.after_run_id}::bigint, max(id), count(*), bit_xor(hashtextextended(content_hash, 0))
        FROM chunk HAVING count(*) > 0
    )
    SELECT count(*)::int AS runs, max(id)::text AS last FROM chunk`;
}

/**
 * Applies `version` once every chunk is computed: under the evaluation's row lock (ingestion's batches,
 * resolutions and trace passes hold it shared) and its audit lock. The runs of a chunk whose range
 * changed since (its count of scored runs or the exclusive or of their content keys), the runs past
 * the last chunk and the runs resolved since the version was saved are computed again here; the others
 * get their chunk's result where it changed them (a run it left as it was has none). False when a newer version
 * was saved meanwhile (its recompute goes on instead).
 */
async function applyVersion(tx: Tx, evaluationId: string, version: number): Promise<boolean> {
  const pending = await pendingVersion(tx, evaluationId, "update");
  if (pending?.version !== version) return false;
  await lockEvaluationAudit(tx, evaluationId);
  const { again } = onlyRowOf(
    z.object({ again: z.array(z.string()) }),
    await underFixedPlan(tx, () => tx.$queryRaw(runsToComputeAgain(evaluationId, version, pending.resolution_high_water))),
  );
  await tx.$executeRaw(chunkResultsTaken(evaluationId, version, again));
  if (again.length > 0) await recomputeFinality(tx, evaluationId, { version, policy: pending.policy }, again);
  // Surfaces from arguments: made again, and separation with them, only when the templates changed (a change of classes leaves them).
  if (!sameTemplates(await appliedPolicy(tx, evaluationId), pending.policy)) await rederiveTouches(tx, evaluationId, pending.policy);
  await tx.$executeRaw`UPDATE evaluations SET effect_policy_version = ${version}, pending_policy_version = NULL WHERE id = ${evaluationId}::uuid`;
  // Every scored run is under it now: those ingested meanwhile are counted in (from the trigger-kept counts).
  await tx.$executeRaw`
    UPDATE evaluation_policy_recomputes r SET applied_at = now(), runs_done = scored.n, runs_total = scored.n
      FROM (SELECT coalesce(sum(n), 0)::int AS n FROM evaluation_run_counts WHERE evaluation_id = ${evaluationId}::uuid AND finality <> 'unscored') scored
     WHERE r.evaluation_id = ${evaluationId}::uuid AND r.version = ${version}`;
  return true;
}

/**
 * The runs the apply computes again: those of every chunk whose range holds other scored runs now than
 * it saw (a batch committed after it, a run re-sent with other content, or scored or unscored since),
 * those past the last chunk, and those resolved since the version was saved. Each range is read as
 * the evaluation's own keys (scoredRunRange); run it underFixedPlan.
 */
export function runsToComputeAgain(evaluationId: string, version: number, resolutionHighWater: string): Prisma.Sql {
  const ownRuns = (columns: Prisma.Sql, after: Prisma.Sql, upTo: Prisma.Sql) => scoredRunRange(evaluationId, columns, after, upTo);
  return Prisma.sql`
    WITH chunks AS (
      -- One read of each chunk's range for both figures (two subqueries read every run twice).
      SELECT c.after_run_id, c.last_run_id, c.runs, c.content_xor, now.runs_now, now.xor_now
        FROM evaluation_recompute_chunks c
       CROSS JOIN LATERAL (SELECT count(*) AS runs_now, coalesce(bit_xor(hashtextextended(r.content_hash, 0)), 0) AS xor_now
                             FROM (${ownRuns(Prisma.sql`content_hash`, Prisma.sql`c.after_run_id`, Prisma.sql`c.last_run_id`)}) r) now
       WHERE c.evaluation_id = ${evaluationId}::uuid AND c.version = ${version}
    ), stale AS (
      SELECT after_run_id, last_run_id FROM chunks WHERE runs_now <> runs OR xor_now <> content_xor
      UNION ALL
      SELECT coalesce((SELECT max(last_run_id) FROM chunks), 0), ${MAX_RUN_ID}::bigint
    )
    SELECT ARRAY(
      SELECT r.id::text FROM stale CROSS JOIN LATERAL (${ownRuns(Prisma.sql`id`, Prisma.sql`stale.after_run_id`, Prisma.sql`stale.last_run_id`)}) r
      UNION
      SELECT run_id::text FROM evaluation_effect_resolutions
       WHERE id > ${resolutionHighWater}::bigint AND evaluation_id = ${evaluationId}::uuid) AS again`;
}

/**
 * Every run a chunk changed takes its result, but those computed again (`again`): each probed by its
 * key within the chunks' range of ids (no plan reads another evaluation's runs, whatever the statistics
 * say). Not underFixedPlan: the runs' triggers would be planned under its switches too.
 */
export function chunkResultsTaken(evaluationId: string, version: number, again: readonly string[]): Prisma.Sql {
  const chunks = Prisma.sql`FROM evaluation_recompute_chunks WHERE evaluation_id = ${evaluationId}::uuid AND version = ${version}`;
  return Prisma.sql`
    UPDATE evaluation_runs r
       SET finality = s.finality, unresolved_reason = s.unresolved_reason, unresolved_effect_id = s.unresolved_effect_id,
           unresolved_tool = s.unresolved_tool, finality_basis = s.finality_basis, audit_policy_version = ${version}
      FROM evaluation_recomputed_finality s
     WHERE s.evaluation_id = ${evaluationId}::uuid AND s.version = ${version} AND r.id = s.run_id AND NOT (s.run_id = ANY(${again}::bigint[]))
       AND r.id > (SELECT min(after_run_id) ${chunks}) AND r.id <= (SELECT max(last_run_id) ${chunks})`;
}

/** The version in force until the pending one is applied. */
async function appliedPolicy(tx: Tx, evaluationId: string): Promise<EffectPolicy> {
  const { tools } = onlyRowOf(
    z.object({ tools: z.unknown() }),
    await tx.$queryRaw`
      SELECT p.tools FROM evaluations e JOIN evaluation_effect_policies p ON p.evaluation_id = e.id AND p.version = e.effect_policy_version
       WHERE e.id = ${evaluationId}::uuid`,
  );
  return effectPolicySchema.parse({ tools });
}

/** The chunks and their results of versions applied or superseded: deleted after the apply, outside its locks. */
async function dropSettledResults(db: Db, evaluationId: string): Promise<void> {
  await db.$executeRaw`
    DELETE FROM evaluation_recomputed_finality s
     USING evaluation_policy_recomputes r
     WHERE r.evaluation_id = ${evaluationId}::uuid AND s.evaluation_id = r.evaluation_id AND s.version = r.version
       AND (r.applied_at IS NOT NULL OR r.superseded_at IS NOT NULL)`;
  await db.$executeRaw`
    DELETE FROM evaluation_recompute_chunks c
     USING evaluation_policy_recomputes r
     WHERE r.evaluation_id = ${evaluationId}::uuid AND c.evaluation_id = r.evaluation_id AND c.version = r.version
       AND (r.applied_at IS NOT NULL OR r.superseded_at IS NOT NULL)`;
}

/**
 * After a version is applied: the runs whose trace marks its calls' writes otherwise than the version
 * does are unlinked, then linked again in bounded passes (record-traces.ts), under a share lock on the
 * evaluation so that no newer version is applied meanwhile.
 */
async function relinkTraces(db: Db, evaluationId: string): Promise<void> {
  const applied = await db.$transaction(async (tx) => {
    const [row] = appliedPolicyRows.parse(
      await tx.$queryRaw`
        SELECT e.effect_policy_version AS version, p.tools
          FROM evaluations e
          JOIN evaluation_policy_recomputes r ON r.evaluation_id = e.id AND r.version = e.effect_policy_version AND r.traces_relinked_at IS NULL
          JOIN evaluation_effect_policies p ON p.evaluation_id = e.id AND p.version = e.effect_policy_version
         WHERE e.id = ${evaluationId}::uuid
           FOR SHARE OF e`,
    );
    if (!row) return null;
    const policy = effectPolicySchema.parse({ tools: row.tools });
    if (await marksMayDiffer(tx, evaluationId, row.version, policy)) await unlinkRunsWithOtherMarks(tx, evaluationId, policy);
    return row.version;
  }, STEP_TRANSACTION);
  if (applied === null) return;
  await recordImportedTraces(db, evaluationId);
  await db.$executeRaw`
    UPDATE evaluation_policy_recomputes SET traces_relinked_at = now() WHERE evaluation_id = ${evaluationId}::uuid AND version = ${applied}`;
}

/**
 * Whether a run's trace may mark its calls' writes otherwise than `policy` (version `version`) does:
 * its trace was made under a version applied since the last one whose links were moved (or version 1),
 * and one of those classes a called tool as changing state where `policy` does not, or the reverse.
 * When none does (the usual new version: a tool moved between two classes that both change state),
 * the unlink's read of every linked trace's calls (the recompute's longest step) is skipped.
 */
async function marksMayDiffer(tx: Tx, evaluationId: string, version: number, policy: EffectPolicy): Promise<boolean> {
  const { tools, earlier } = onlyRowOf(
    z.object({ tools: z.array(z.string()), earlier: z.array(z.unknown()) }),
    await tx.$queryRaw`
      SELECT ARRAY(SELECT tool FROM evaluation_tool_counts WHERE evaluation_id = ${evaluationId}::uuid AND calls > 0) AS tools,
             ARRAY(SELECT p.tools FROM evaluation_effect_policies p
                     LEFT JOIN evaluation_policy_recomputes r ON r.evaluation_id = p.evaluation_id AND r.version = p.version
                    WHERE p.evaluation_id = ${evaluationId}::uuid AND p.version < ${version} AND r.superseded_at IS NULL
                      AND p.version >= coalesce((SELECT max(version) FROM evaluation_policy_recomputes
                                                  WHERE evaluation_id = ${evaluationId}::uuid AND version < ${version} AND traces_relinked_at IS NOT NULL), 1)) AS earlier`,
  );
  const marks = (p: EffectPolicy) => stateChangingTools(tools, toolClassifier(p)).join("\n");
  const now = marks(policy);
  return earlier.some((tools) => marks(effectPolicySchema.parse({ tools })) !== now);
}

/**
 * The job's work: steps until the pending version is applied (or none is), then the settled results
 * dropped and the trace links moved. `afterStep` runs between steps (the worker stops there when it
 * is shutting down; a test dies there to show a retried job resumes).
 */
export async function applyPendingPolicy(
  db: Db,
  evaluationId: string,
  options: { chunkRuns?: number; afterStep?: (step: RecomputeStep) => void | Promise<void> } = {},
): Promise<void> {
  for (;;) {
    const step = await recomputeStep(db, evaluationId, options.chunkRuns);
    await options.afterStep?.(step);
    if (step !== "chunk") break;
  }
  await dropSettledResults(db, evaluationId);
  await relinkTraces(db, evaluationId);
}

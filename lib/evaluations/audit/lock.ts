// The stored audit (this folder): the pure rules (finality.ts, separation.ts, links.ts, units.ts)
// applied to what PostgreSQL holds, and their results written back on each run, so that every figure
// is an SQL aggregate. Every writer of an evaluation's audit first takes the locks below.
import { z } from "zod";
import type { SqlTx } from "../../db/sql-transaction";
import { toolEntrySchema, type EffectPolicy } from "../effect-policy-schema";

/** Prisma's interactive transactions, or ingestion's own on node-postgres (lib/db/sql-transaction.ts). */
export type Tx = SqlTx;

const versionRows = z.array(z.object({ version: z.number().int() }));
const policyRow = z.tuple([z.object({ tools: z.record(z.string(), toolEntrySchema) })]);

/**
 * Serialises the audit's read-modify-write of one evaluation's units (until the transaction ends).
 *
 * The lock order, one for every writer of an evaluation's audit and of its runs' trace links (ingest
 * batches and live runs' records, resolutions, reset canaries, a policy's apply, record_traces passes):
 *   1. the evaluation's row: shared (currentPolicy "share", or the pass's FOR SHARE) or exclusive (a
 *      policy's apply, "update");
 *   2. this advisory lock;
 *   3. the rows of runs, their children and links.
 * Nothing takes 2 without 1 first, nor 1 while holding 2: a record_traces pass that took its own
 * advisory lock before the row deadlocked (40P01) with a writer holding the row and linking in its
 * transaction (lib/evaluations/record-traces/lock-order.db.test.ts runs them side by side).
 */
export async function lockEvaluationAudit(tx: Tx, evaluationId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`evaluation-audit:${evaluationId}`}, 0))`;
}

/** The evaluation's current policy, read under a share lock: a new policy version waits for the writers, and they for it. */
export async function currentPolicy(
  tx: Tx,
  evaluationId: string,
  lock: "share" | "update",
): Promise<{ version: number; policy: EffectPolicy } | null> {
  // The row is locked first and its policy read by a second statement: one statement joining both,
  // once it had waited for a new version to commit, re-checked the join against the policy row of its
  // own snapshot (the old version), found none, and answered "no such evaluation".
  const locked =
    lock === "share"
      ? await tx.$queryRaw`SELECT effect_policy_version AS version FROM evaluations WHERE id = ${evaluationId}::uuid FOR SHARE`
      : await tx.$queryRaw`SELECT effect_policy_version AS version FROM evaluations WHERE id = ${evaluationId}::uuid FOR UPDATE`;
  const version = versionRows.parse(locked)[0]?.version;
  if (version === undefined) return null;
  const rows =
    await tx.$queryRaw`SELECT tools FROM evaluation_effect_policies WHERE evaluation_id = ${evaluationId}::uuid AND version = ${version}`;
  const [{ tools }] = policyRow.parse(rows);
  return { version, policy: { tools } };
}

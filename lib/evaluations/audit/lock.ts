// The stored audit (this folder): the pure rules (finality.ts, separation.ts, links.ts, units.ts)
// applied to what PostgreSQL holds, and their results written back on each run, so that every figure
// is an SQL aggregate. Every writer of an evaluation's audit first takes the locks below.
import { z } from "zod";
import type { SqlTx } from "../../db/sql-transaction";
import { toolEntrySchema, type EffectPolicy } from "../schemas";

/** Prisma's interactive transactions, or ingestion's own on node-postgres (lib/db/sql-transaction.ts). */
export type Tx = SqlTx;

const versionRows = z.array(z.object({ version: z.number().int() }));
const policyRow = z.tuple([z.object({ tools: z.record(z.string(), toolEntrySchema) })]);

/** Serialises the audit's read-modify-write of one evaluation's units (until the transaction ends). */
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

import { z } from "zod";
import type { SqlClient } from "../../db/sql-transaction";

/** Reads of one answer that find the applied version moving under them this many times in a row: a bug, not a race. */
const MAX_READS = 5;

const versionRows = z.array(z.object({ version: z.number().int() }));

async function appliedVersion(db: SqlClient, evaluationId: string): Promise<number | null> {
  const [row] = versionRows.parse(
    await db.$queryRaw`SELECT effect_policy_version AS version FROM evaluations WHERE id = ${evaluationId}::uuid`,
  );
  return row?.version ?? null;
}

/**
 * `read` (several queries, in parallel or not) under one applied policy version: the version is read
 * before and after, and the whole read repeated when a new version was applied between them. The
 * version only moves forward, so equal readings mean every query's snapshot saw the same one: no
 * answer mixes figures of two versions (docs/evaluations.md, A new policy version is a job). Each query may still see runs ingested
 * meanwhile, as any read of a growing evaluation does.
 */
export async function underOneAppliedVersion<T>(db: SqlClient, evaluationId: string, read: () => Promise<T>): Promise<T> {
  for (let reads = 1; ; reads++) {
    const before = await appliedVersion(db, evaluationId);
    const value = await read();
    if ((await appliedVersion(db, evaluationId)) === before) return value;
    if (reads === MAX_READS)
      throw new Error(`evaluation ${evaluationId}: its applied policy version moved during ${MAX_READS} reads in a row`);
  }
}

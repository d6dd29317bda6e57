// The expiry job's work (live-run-job.ts): a run not scored within its timeout is stored unscored.
import { z } from "zod";
import type { Db } from "../../db/prisma";
import { rowsOf } from "../../db/rows";
import { expire, inTransaction, lockRun } from "./run-lock";

/** The expiry job's work: stores the run unscored if it is still open and overdue; answers whether it did. */
export async function expireLiveRun(db: Db, liveRunId: string): Promise<boolean> {
  return inTransaction(db, async (tx) => {
    const found = rowsOf(
      z.object({ evaluation_id: z.string(), external_id: z.string() }),
      await tx.$queryRaw`SELECT evaluation_id::text, external_id FROM live_runs WHERE id = ${liveRunId}::bigint`,
    )[0];
    if (!found) return false;
    const row = await lockRun(tx, found.evaluation_id, found.external_id);
    if (!row?.due) return false;
    await expire(tx, found.evaluation_id, row);
    return true;
  });
}

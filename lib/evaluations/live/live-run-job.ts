import { z } from "zod";
import type { SqlTx } from "../../db/sql-transaction";
import { addKeyedJob } from "../../jobs/queue";

/**
 * Stores a live run that was never scored as unscored once its timeout has passed (expire-live-runs.ts
 * expireLiveRun); enqueued, to run at the run's expiry, in the transaction that opens the run. A
 * run scored meanwhile is left as it is. Any write to an overdue run expires it too, so the rule
 * holds while no worker runs.
 */
export const EXPIRE_LIVE_RUN_JOB = "expire_live_run";
export const EXPIRE_LIVE_RUN_MAX_ATTEMPTS = 10;
export const expireLiveRunPayloadSchema = z.strictObject({ liveRunId: z.string().regex(/^[0-9]+$/) });
export type ExpireLiveRunPayload = z.infer<typeof expireLiveRunPayloadSchema>;

export async function enqueueExpireLiveRunJob(tx: Pick<SqlTx, "$queryRaw">, liveRunId: string, runAt: Date): Promise<void> {
  const payload: ExpireLiveRunPayload = { liveRunId };
  await addKeyedJob(tx, EXPIRE_LIVE_RUN_JOB, payload, `expire-live-run:${liveRunId}`, EXPIRE_LIVE_RUN_MAX_ATTEMPTS, runAt);
}

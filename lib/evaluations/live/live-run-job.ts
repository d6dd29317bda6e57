import { z } from "zod";
import { defineJob } from "../../jobs/job-definition";

/**
 * Stores a live run that was never scored as unscored once its timeout has passed (expire-live-runs.ts
 * expireLiveRun); enqueued, to run at the run's expiry, in the transaction that opens the run. A
 * run scored meanwhile is left as it is. Any write to an overdue run expires it too, so the rule
 * holds while no worker runs.
 */
export const expireLiveRunJob = defineJob({
  name: "expire_live_run",
  payload: z.strictObject({ liveRunId: z.string().regex(/^[0-9]+$/) }),
  maxAttempts: 10,
  key: (payload) => `expire-live-run:${payload.liveRunId}`,
});

import type { Db } from "../db/prisma";
import { failQueuedJobs, lockedJobCount, queuedJobCount } from "../jobs/queue";
import { canaryTrialJob } from "../canary/jobs";
import { experimentJobKeyPrefix, replayUnitJob } from "../replay/run/jobs";

// An experiment's jobs in the queue, of either kind: replay units and canary trials share the
// experiment's key prefix.

type Sql = Pick<Db, "$queryRaw">;
const UNIT_TASKS = [replayUnitJob.name, canaryTrialJob.name];

/** Permanently fails the experiment's unit jobs that no worker holds, so none starts; returns how many. */
export const failQueuedUnitJobs = (db: Sql, experimentId: string, reason: string) =>
  failQueuedJobs(db, experimentJobKeyPrefix(experimentId), UNIT_TASKS, reason);

/** Jobs of the experiment a worker holds right now. */
export const lockedExperimentJobCount = (db: Sql, experimentId: string) => lockedJobCount(db, experimentJobKeyPrefix(experimentId));

/** Unit jobs of the experiment in the queue (locked or not): one per replay unit, or per canary trial, until it has run. */
export const queuedUnitJobCount = (db: Sql, experimentId: string) => queuedJobCount(db, experimentJobKeyPrefix(experimentId), UNIT_TASKS);

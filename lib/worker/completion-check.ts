import type { WorkerUtils } from "graphile-worker";
import type { Db } from "../db/prisma";
import { finalizeExperimentJob } from "../replay/run/jobs";
import type { ReplayConfig } from "../replay/rules/config";
import { expectedRunCount } from "../replay/rules/grid";

/**
 * Once every run of an experiment is stored, one finalize job is enqueued (deduplicated by key).
 * Checks are coalesced per experiment; one requested while another runs makes it run again after,
 * so the last unit to commit is always counted.
 */
export class CompletionCheck {
  private readonly checks = new Map<string, { running: Promise<void>; again: boolean }>();

  constructor(
    private readonly db: Db,
    private readonly utils: WorkerUtils,
  ) {}

  request(experimentId: string, config: ReplayConfig): Promise<void> {
    const current = this.checks.get(experimentId);
    if (current) {
      current.again = true;
      return current.running;
    }
    const entry = { running: Promise.resolve(), again: true };
    entry.running = (async () => {
      try {
        while (entry.again) {
          entry.again = false;
          if ((await this.db.run.count({ where: { experimentId } })) >= expectedRunCount(config))
            await finalizeExperimentJob.enqueueNow(this.utils, { experimentId });
        }
      } finally {
        this.checks.delete(experimentId);
      }
    })();
    this.checks.set(experimentId, entry);
    return entry.running;
  }
}

import type { Db } from "../db/prisma";
import { replayConfigSchema, type ReplayConfig } from "../replay/rules/config";
import { markExperimentStarted, recordService } from "../replay/store/persist";

/** A cancellation is seen within this long. */
const STATE_TTL_MS = 1_000;

export interface CachedExperiment {
  config: ReplayConfig;
  state: string;
  readAt: number;
}

/**
 * Per-experiment facts cached so that a unit costs few queries: database work in this process
 * competes with the replay's own requests for CPU. The state is re-read at most once a second, and
 * the experiment is marked started (with the service it runs against) once per worker. Jobs that
 * find the cache stale share one read: the first jobs of an experiment arrive together (a whole
 * fetched batch), and one query each, plus an UPDATE each of the same experiment row, delayed and
 * then bunched the first wave of units, which made the replay's own lag show in the labels.
 */
export class ExperimentCache {
  private readonly experiments = new Map<string, CachedExperiment>();
  private readonly reading = new Map<string, Promise<CachedExperiment | null>>();

  constructor(
    private readonly db: Db,
    private readonly service: () => { url: string; timeOrigin: number },
  ) {}

  /** The experiment, or null when it does not exist. */
  get(experimentId: string): Promise<CachedExperiment | null> {
    const cached = this.experiments.get(experimentId);
    if (cached && performance.now() - cached.readAt < STATE_TTL_MS) return Promise.resolve(cached);
    const pending = this.reading.get(experimentId);
    if (pending) return pending;
    const read = (async () => {
      const row = await this.db.experiment.findUnique({ where: { id: experimentId }, select: { config: true, state: true } });
      if (!row) return null;
      const fresh = { config: cached?.config ?? replayConfigSchema.parse(row.config), state: row.state, readAt: performance.now() };
      if (!cached) {
        await recordService(this.db, experimentId, this.service());
        await markExperimentStarted(this.db, experimentId);
      }
      this.experiments.set(experimentId, fresh);
      return fresh;
    })().finally(() => this.reading.delete(experimentId));
    this.reading.set(experimentId, read);
    return read;
  }

  /** Forgets a finalized experiment. */
  forget(experimentId: string): void {
    this.experiments.delete(experimentId);
  }
}

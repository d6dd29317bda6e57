import { LRUCache } from "lru-cache";
import type { Db } from "../db/prisma";
import { experimentSummary } from "../replay/store/summary";
import { replaySummarySchema, type ReplaySummary } from "../replay/rules/summary-schema";

/**
 * A finished experiment's aggregates never change: `completed` and `failed` are set once, after
 * every run is stored (finalizeExperiment) or when the replay stopped for good, and nothing writes
 * its runs after. So they are computed once per process and served from memory, keyed by the
 * experiment and its finish time; a queued, running, cancelled or interrupted experiment (whose
 * runs may still arrive) is aggregated afresh on every request.
 */
const IMMUTABLE_STATES = new Set(["completed", "failed"]);

/**
 * A per-process cache of one aggregate of finished replay experiments: `compute` runs once per
 * finished experiment, every time for the others; null when there is no such experiment, or when it
 * is of another kind (a canary experiment has its own results: lib/canary/store.ts).
 */
export function finishedExperimentCache<T extends object>(
  compute: (db: Db, experimentId: string) => Promise<T>,
): (db: Db, experimentId: string) => Promise<T | null> {
  const finished = new LRUCache<string, T>({ max: 200 });
  return async (db, experimentId) => {
    const row = await db.experiment.findUnique({
      where: { id: experimentId },
      select: { kind: true, state: true, finishedAt: true, exclusionRuleVersion: true },
    });
    if (!row || row.kind !== "replay") return null;
    // Keyed by the rule version too: a new version of the declared exclusion rule changes the statistics.
    const key =
      IMMUTABLE_STATES.has(row.state) && row.finishedAt
        ? `${experimentId}@${row.finishedAt.toISOString()}/rule ${row.exclusionRuleVersion}`
        : null;
    const hit = key ? finished.get(key) : undefined;
    if (hit) return hit;
    const value = await compute(db, experimentId);
    if (key) finished.set(key, value);
    return value;
  };
}

/** The experiment's summary, or null when there is no such experiment. One small query when it is finished and seen before. */
export const cachedExperimentSummary: (db: Db, experimentId: string) => Promise<ReplaySummary | null> = finishedExperimentCache(
  // Checked against its schema as the API promises it (once per finished experiment).
  async (db, experimentId) => replaySummarySchema.parse(await experimentSummary(db, experimentId)),
);

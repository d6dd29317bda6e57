import { LRUCache } from "lru-cache";
import type { Db } from "../db/prisma";
import { experimentSummary } from "../replay/summary";
import { replaySummarySchema, type ReplaySummary } from "../replay/summary-schema";

/**
 * A finished experiment's summary never changes: `completed` and `failed` are set once, after
 * every run is stored (finalizeExperiment) or when the replay stopped for good, and nothing writes
 * its runs after. So it is computed once per process and served from memory, keyed by the
 * experiment and its finish time; a queued, running, cancelled or interrupted experiment (whose
 * runs may still arrive) is aggregated afresh on every request.
 */
const IMMUTABLE_STATES = new Set(["completed", "failed"]);
const finished = new LRUCache<string, ReplaySummary>({ max: 200 });

/** The experiment's summary, or null when there is no such experiment. One small query when it is finished and seen before. */
export async function cachedExperimentSummary(db: Db, experimentId: string): Promise<ReplaySummary | null> {
  const row = await db.experiment.findUnique({ where: { id: experimentId }, select: { state: true, finishedAt: true } });
  if (!row) return null;
  const key = IMMUTABLE_STATES.has(row.state) && row.finishedAt ? `${experimentId}@${row.finishedAt.toISOString()}` : null;
  const hit = key ? finished.get(key) : undefined;
  if (hit) return hit;
  // Checked against its schema as the API promises it (once per finished experiment).
  const summary = replaySummarySchema.parse(await experimentSummary(db, experimentId));
  if (key) finished.set(key, summary);
  return summary;
}

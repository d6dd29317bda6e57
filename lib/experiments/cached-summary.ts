import { LRUCache } from "lru-cache";
import { z } from "zod";
import type { Db } from "../db/prisma";
import { rowsOf } from "../db/rows";
import { experimentSummary } from "../replay/store/summary";
import { replaySummarySchema, type ReplaySummary } from "../replay/rules/summary-schema";
import { finalityByDelay, unresolvedRuns, type FinalityDelayRow } from "./read/experiment-aggregates";
import type { ExperimentPageFacts } from "./read/experiment-facts";

/**
 * A finished experiment's aggregates never change: `completed` and `failed` are set once, after
 * every run is stored (finalizeExperiment) or when the replay stopped for good, and nothing writes
 * its runs after. So they are computed once per process and served from memory, keyed by the
 * experiment and its finish time; a queued, running, cancelled or interrupted experiment (whose
 * runs may still arrive) is aggregated afresh on every request.
 */
const IMMUTABLE_STATES = new Set(["completed", "failed"]);

const keyRow = z.object({
  kind: z.string(),
  state: z.string(),
  finished_at: z.date().nullable(),
  exclusion_rule_version: z.number().int(),
});

/** What a finished experiment's aggregates are keyed by: read here, or passed in by a caller that read the experiment's row already (the experiment page). */
export type ExperimentCacheKey = Pick<ExperimentPageFacts, "id" | "kind" | "state" | "finishedAt" | "exclusionRuleVersion">;

async function readCacheKey(db: Db, experimentId: string): Promise<ExperimentCacheKey | null> {
  // Raw SQL: asked on every request, and Prisma compiles a model query on every call (~0.5 ms of CPU).
  const [row] = rowsOf(
    keyRow,
    await db.$queryRaw`SELECT kind, state, finished_at, exclusion_rule_version FROM experiments WHERE id = ${experimentId}::uuid`,
  );
  return row
    ? { id: experimentId, kind: row.kind, state: row.state, finishedAt: row.finished_at, exclusionRuleVersion: row.exclusion_rule_version }
    : null;
}

/**
 * A per-process cache of one aggregate of finished replay experiments: `compute` runs once per
 * finished experiment, every time for the others; null when there is no such experiment, or when it
 * is of another kind (a canary experiment has its own results: lib/canary/canary-results-store.ts). Given the
 * experiment's id, it reads the key; given the key, it reads nothing more.
 */
export function finishedExperimentCache<T extends {}>(
  compute: (db: Db, experimentId: string, key: ExperimentCacheKey) => Promise<T>,
): (db: Db, experiment: string | ExperimentCacheKey) => Promise<T | null> {
  const finished = new LRUCache<string, T>({ max: 200 });
  return async (db, experiment) => {
    const key = typeof experiment === "string" ? await readCacheKey(db, experiment) : experiment;
    if (!key || key.kind !== "replay") return null;
    // Keyed by the rule version too: a new version of the declared exclusion rule changes the statistics.
    const cacheKey =
      IMMUTABLE_STATES.has(key.state) && key.finishedAt
        ? `${key.id}@${key.finishedAt.toISOString()}/rule ${key.exclusionRuleVersion}`
        : null;
    const hit = cacheKey ? finished.get(cacheKey) : undefined;
    if (hit) return hit;
    const value = await compute(db, key.id, key);
    if (cacheKey) finished.set(cacheKey, value);
    return value;
  };
}

/** The experiment's summary, or null when there is no such experiment. One small query when it is finished and seen before. */
export const cachedExperimentSummary: (db: Db, experiment: string | ExperimentCacheKey) => Promise<ReplaySummary | null> =
  finishedExperimentCache(
    // Checked against its schema as the API promises it (once per finished experiment).
    async (db, experimentId) => replaySummarySchema.parse(await experimentSummary(db, experimentId)),
  );

/** What the experiment page shows of a replay's results: its summary, finality by delay and unresolved runs; null as above. */
export const cachedExperimentResults: (
  db: Db,
  experiment: string | ExperimentCacheKey,
) => Promise<{ summary: ReplaySummary; byDelay: FinalityDelayRow[]; unresolved: number } | null> = finishedExperimentCache(
  async (db, experimentId, key) => {
    const [summary, byDelay, unresolved] = await Promise.all([
      // The summary's own cache: computed once and held once for both.
      cachedExperimentSummary(db, key),
      finalityByDelay(db, experimentId),
      unresolvedRuns(db, experimentId),
    ]);
    // Never null: the key is a replay experiment's, which the summary's cache answers.
    return { summary: summary!, byDelay, unresolved };
  },
);

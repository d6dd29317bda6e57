"use client";

import { useSyncExternalStore } from "react";
import { StatCard } from "@/components/ui/stat-card";
import { percent } from "@/lib/format/numbers";

// One source for the runs an experiment has stored while it runs: the progress panel's poll publishes
// each answer here, and the headline's "Runs stored" card reads it, so the two never show different
// counts on one screen (the card's server rendering refreshes only every few seconds).

export interface StoredProgress {
  done: number;
  total: number;
}

const latest = new Map<string, StoredProgress>();
const listeners = new Set<() => void>();

/** The progress panel's latest answer for the experiment. */
export function publishProgress(experimentId: string, progress: StoredProgress): void {
  const previous = latest.get(experimentId);
  if (previous && previous.done === progress.done && previous.total === progress.total) return;
  latest.set(experimentId, progress);
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The headline's "Runs stored" card: the progress panel's count once it has one, else the server's. */
export function RunsStoredCard({ experimentId, initial, meaning }: { experimentId: string; initial: StoredProgress; meaning: string }) {
  const { done, total } = useSyncExternalStore(
    subscribe,
    () => latest.get(experimentId) ?? initial,
    () => initial,
  );
  return (
    <StatCard
      label="Runs stored"
      value={percent(done, total)}
      ratio={{ n: done, of: total, what: "runs of the grid" }}
      meaning={meaning}
      testId="stat-runs"
    />
  );
}

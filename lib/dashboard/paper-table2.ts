import type { ReplaySummary } from "../replay/summary-schema";

/** A count pair: n of N. */
export interface Ratio {
  n: number;
  of: number;
}

export interface Table2Row {
  test: "Finality" | "Separation";
  condition: string;
  /** The figure as the paper prints it (seeds/000, Table 2). */
  published: string;
  /** The same figure from this experiment, null when the experiment lacks the conditions it needs. */
  reproduced: string | null;
  /** Whether this experiment's figure equals the published one; meaningful on the paper's grid. */
  matches: boolean | null;
}

const fmt = (r: Ratio) => `${r.n}/${r.of}`;

/**
 * The paper's Table 2, row by row, beside this experiment's figures computed the same way. The
 * published values are the paper's own (seeds/000); nothing here is derived from our replay.
 */
export function paperTable2Comparison(summary: Pick<ReplaySummary, "finality" | "separation">): Table2Row[] {
  const policy = (p: string) => summary.finality.find((f) => f.policy === p);
  const condition = (c: string) => summary.separation.find((s) => s.condition === c);
  const row = (test: Table2Row["test"], name: string, published: Ratio, reproduced: Ratio | null, suffix: string): Table2Row => ({
    test,
    condition: name,
    published: `${fmt(published)} ${suffix}`,
    reproduced: reproduced ? `${fmt(reproduced)} ${suffix}` : null,
    matches: reproduced ? reproduced.n === published.n && reproduced.of === published.of : null,
  });
  const nonzeroSuccesses = (p: string): Ratio | null => {
    const f = policy(p);
    return f ? { n: f.successesNonzeroDelay, of: f.trialsNonzeroDelay } : null;
  };
  const sync = ["sync_snapshot", "sync_reconciliation", "sync_verified_cancellation"].map(policy);
  const syncDisagreements = sync.every((f) => f) ? { n: sync.reduce((s, f) => s + f!.disagreements, 0), of: sync.reduce((s, f) => s + f!.trials, 0) } : null;
  const exposures = (c: string): Ratio | null => {
    const s = condition(c);
    return s ? { n: s.exposures, of: s.pairs } : null;
  };
  const shared = condition("shared");
  const namespaced = condition("namespaced");
  const scoreGap = shared?.meanScoreB != null && namespaced?.meanScoreB != null ? namespaced.meanScoreB - shared.meanScoreB : null;

  return [
    row("Finality", "Snapshot", { n: 0, of: 150 }, nonzeroSuccesses("snapshot"), "successes at nonzero delays"),
    row("Finality", "Reconciliation", { n: 150, of: 150 }, nonzeroSuccesses("reconciliation"), "successes at nonzero delays"),
    row("Finality", "Verified cancellation", { n: 0, of: 150 }, nonzeroSuccesses("verified_cancellation"), "successes at nonzero delays"),
    row("Finality", "Synchronous control", { n: 0, of: 600 }, syncDisagreements, "disagreements"),
    row("Separation", "Shared state", { n: 150, of: 200 }, exposures("shared"), "exposures"),
    {
      test: "Separation",
      condition: "Shared state: B's mean score against namespacing",
      published: "0.75 lower",
      reproduced: scoreGap === null ? null : `${scoreGap.toFixed(2)} lower`,
      matches: scoreGap === null ? null : Math.abs(scoreGap - 0.75) < 1e-9,
    },
    row("Separation", "Namespacing", { n: 0, of: 200 }, exposures("namespaced"), "exposures"),
    row("Separation", "Verified reset", { n: 0, of: 200 }, exposures("verified_reset"), "exposures"),
    row("Separation", "No-write control", { n: 0, of: 200 }, exposures("no_write"), "exposures"),
  ];
}

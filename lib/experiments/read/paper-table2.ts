import { FINALITY_POLICIES, PAPER_DELAYS_MS, SEPARATION_CONDITIONS } from "../../replay/rules/config";
import { expectedTable2 } from "../../replay/rules/expected-table2";
import type { ReplaySummary } from "../../replay/rules/summary-schema";

/** A count pair: n of N. */
export interface Ratio {
  n: number;
  of: number;
}

export interface Table2Row {
  test: "Finality" | "Separation";
  condition: string;
  /** The figure as the paper prints it (the paper, Table 2). */
  published: string;
  /** The same figure from this experiment, null when the experiment lacks the conditions it needs. */
  reproduced: string | null;
  /** Whether this experiment's figure equals the published one; meaningful on the paper's grid. */
  matches: boolean | null;
}

const fmt = (r: Ratio) => `${r.n}/${r.of}`;

/**
 * The paper's Table 2, row by row, beside this experiment's figures computed the same way. The
 * published values are the paper's own (Table 2); nothing here is derived from our replay.
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
  const syncDisagreements = sync.every((f) => f)
    ? { n: sync.reduce((s, f) => s + f!.disagreements, 0), of: sync.reduce((s, f) => s + f!.trials, 0) }
    : null;
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

// ---------------------------------------------------------------------------------------------
// The page's Table 2: each row against what the paper's rules predict for this experiment's own
// grid (expectedTable2), and the paper's published figure beside it only on the paper's grid.

/** The grid an experiment replayed, as far as Table 2 needs it. */
export type Table2Grid = Parameters<typeof expectedTable2>[0];

/** Whether a grid is the paper's: one trace, delays {0, 25, 100, 250} ms, 5 schedules, 10 repetitions, every policy and condition. */
export function isPaperGrid(grid: Table2Grid): boolean {
  const delays = [...grid.delaysMs].sort((a, b) => a - b);
  return (
    delays.join(",") === PAPER_DELAYS_MS.join(",") &&
    grid.schedules === 5 &&
    grid.repetitions === 10 &&
    (grid.traces?.length ?? 1) === 1 &&
    FINALITY_POLICIES.every((p) => grid.finalityPolicies.includes(p)) &&
    SEPARATION_CONDITIONS.every((c) => grid.separationConditions.includes(c))
  );
}

/**
 * match / differs: the experiment is complete and its figure equals (or not) the prediction;
 * pending: still queued or running; incomplete: it stopped (cancelled, failed) before all its runs;
 * not_in_grid: the experiment did not replay what the row needs.
 */
export type Table2Status = "match" | "differs" | "pending" | "incomplete" | "not_in_grid";

export interface Table2ComparisonRow {
  test: "Finality" | "Separation";
  condition: string;
  /** The paper's printed figure: only on the paper's grid (elsewhere its counts do not apply). */
  published: string | null;
  /** What the rules predict for this grid; null when the grid lacks the row's conditions. */
  expected: string | null;
  /** This experiment's figure, computed the same way; null when it has none (yet). */
  reproduced: string | null;
  status: Table2Status;
}

/** The experiment's Table 2 rows, each compared with this grid's prediction. */
export function table2Comparison(
  summary: Pick<ReplaySummary, "finality" | "separation">,
  grid: Table2Grid,
  progress: "running" | "stopped" | "complete",
): Table2ComparisonRow[] {
  const paper = isPaperGrid(grid) ? paperTable2Comparison(expectedTable2(grid)) : null;
  const expected = paperTable2Comparison(expectedTable2(grid));
  const actual = paperTable2Comparison(summary);
  return expected.map((row, i) => {
    const got = actual[i]!;
    const inGrid = row.reproduced !== null;
    const status: Table2Status = !inGrid
      ? "not_in_grid"
      : progress === "running"
        ? "pending"
        : progress === "stopped"
          ? "incomplete"
          : got.reproduced === row.reproduced
            ? "match"
            : "differs";
    return {
      test: row.test,
      condition: row.condition,
      published: paper ? paper[i]!.published : null,
      expected: row.reproduced,
      reproduced: got.reproduced,
      status,
    };
  });
}

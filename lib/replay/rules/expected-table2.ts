import { FINALITY_POLICIES, SEPARATION_CONDITIONS, type ReplayConfig } from "./config";
import type { ReplaySummary } from "./summary-schema";

type Grid = Pick<ReplayConfig, "delaysMs" | "schedules" | "repetitions" | "finalityPolicies" | "separationConditions"> & {
  traces?: readonly unknown[];
};
export type Table2Counts = Pick<ReplaySummary, "finality" | "separation">;

/**
 * What the paper's mechanism predicts for a grid (DESIGN.md): at zero delay the write lands
 * before the acknowledgement; at every nonzero delay it lands after the endpoint and after B's
 * initialisation. For the paper's grid this is exactly its Table 2. Every trace (whatever its number
 * of writes) follows the same mechanism, so a grid of several traces predicts each count times their number.
 */
export function expectedTable2(grid: Grid): Table2Counts {
  const perDelay = (grid.traces?.length ?? 1) * grid.schedules * grid.repetitions;
  const trials = perDelay * grid.delaysMs.length;
  const nonzero = perDelay * grid.delaysMs.filter((d) => d > 0).length;
  const zero = trials - nonzero;
  const finality = FINALITY_POLICIES.filter((p) => grid.finalityPolicies.includes(p)).map((policy) => {
    const synchronous = policy.startsWith("sync_");
    const successes = synchronous || policy === "reconciliation" ? trials : zero;
    const disagreements = !synchronous && (policy === "snapshot" || policy === "reconciliation") ? nonzero : 0;
    return {
      policy,
      trials,
      successes,
      trialsNonzeroDelay: nonzero,
      successesNonzeroDelay: successes - zero, // every policy records success at zero delay
      disagreements,
      disagreementsNonzeroDelay: disagreements,
    };
  });
  const separation = SEPARATION_CONDITIONS.filter((c) => grid.separationConditions.includes(c)).map((condition) => {
    const exposed = condition === "shared" || condition === "grouped";
    const exposures = exposed ? nonzero : 0;
    return {
      condition,
      pairs: trials,
      exposures,
      runRows: 2 * trials,
      analysisUnits: condition === "grouped" ? trials : 2 * trials,
      meanScoreB: (trials - exposures) / trials,
    };
  });
  return { finality, separation };
}

/** Every place where a summary's Table 2 counts differ from what the grid predicts; empty when exact. */
export function table2Mismatches(summary: Table2Counts, grid: Grid): string[] {
  const expected = expectedTable2(grid);
  const problems: string[] = [];
  const compare = (where: string, actual: object | undefined, wanted: object) => {
    if (!actual) return problems.push(`${where}: missing`);
    for (const [field, value] of Object.entries(wanted)) {
      const got = (actual as Record<string, unknown>)[field];
      const same = typeof value === "number" && typeof got === "number" ? Math.abs(value - got) < 1e-9 : got === value;
      if (!same) problems.push(`${where}.${field}: ${String(got)}, expected ${String(value)}`);
    }
  };
  for (const row of expected.finality)
    compare(
      row.policy,
      summary.finality.find((f) => f.policy === row.policy),
      row,
    );
  for (const row of expected.separation)
    compare(
      row.condition,
      summary.separation.find((s) => s.condition === row.condition),
      row,
    );
  return problems;
}

import type { ReplaySummary } from "../replay/summary-schema";
import { paperTable2Comparison } from "./paper-table2";

/** One figure of the Table 2 reproduction: a count pair (or a mean), with what it counts. */
export interface Table2Record {
  test: "finality" | "separation";
  condition: string;
  measure: string;
  numerator: number | null;
  denominator: number | null;
  /** numerator/denominator, or the mean itself for mean scores. */
  value: number | null;
}

const ratio = (n: number, of: number) => ({ numerator: n, denominator: of, value: of === 0 ? null : n / of });

/** Every Table 2 figure of an experiment as flat records: the rows of the CSV and JSON exports. */
export function table2Records(summary: Pick<ReplaySummary, "finality" | "separation">): Table2Record[] {
  return [
    ...summary.finality.flatMap((f) => [
      { test: "finality" as const, condition: f.policy, measure: "recorded_successes", ...ratio(f.successes, f.trials) },
      { test: "finality" as const, condition: f.policy, measure: "recorded_successes_nonzero_delay", ...ratio(f.successesNonzeroDelay, f.trialsNonzeroDelay) },
      { test: "finality" as const, condition: f.policy, measure: "endpoint_terminal_disagreements", ...ratio(f.disagreements, f.trials) },
      { test: "finality" as const, condition: f.policy, measure: "endpoint_terminal_disagreements_nonzero_delay", ...ratio(f.disagreementsNonzeroDelay, f.trialsNonzeroDelay) },
    ]),
    ...summary.separation.flatMap((s) => [
      { test: "separation" as const, condition: s.condition, measure: "exposures_per_pair", ...ratio(s.exposures, s.pairs) },
      { test: "separation" as const, condition: s.condition, measure: "analysis_units_per_run_row", ...ratio(s.analysisUnits, s.runRows) },
      { test: "separation" as const, condition: s.condition, measure: "mean_score_b", numerator: null, denominator: null, value: s.meanScoreB },
    ]),
  ];
}

/** The JSON export: the records, and the comparison with the paper's published rows. */
export function table2Export(summary: ReplaySummary) {
  return { experimentId: summary.experimentId, grid: summary.config, records: table2Records(summary), paper: paperTable2Comparison(summary) };
}

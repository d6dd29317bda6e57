import type { ReplaySummary } from "../../replay/rules/summary-schema";
import { wilsonInterval } from "../../statistics/wilson";
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
  /** The 95 % Wilson interval of a rate (docs/statistics.md); null for a mean, a ratio that is not a rate, or a zero denominator. Added columns: the ones above keep their names. */
  wilson95_lower: number | null;
  wilson95_upper: number | null;
}

const ratio = (n: number, of: number) => {
  const interval = wilsonInterval(n, of);
  return {
    numerator: n,
    denominator: of,
    value: of === 0 ? null : n / of,
    wilson95_lower: interval?.[0] ?? null,
    wilson95_upper: interval?.[1] ?? null,
  };
};
/** Units per run row: a count ratio, not the rate of an outcome over trials, so no interval. */
const countRatio = (n: number, of: number) => ({
  numerator: n,
  denominator: of,
  value: of === 0 ? null : n / of,
  wilson95_lower: null,
  wilson95_upper: null,
});

/** Every Table 2 figure of an experiment as flat records: the rows of the CSV and JSON exports. */
export function table2Records(summary: Pick<ReplaySummary, "finality" | "separation">): Table2Record[] {
  return [
    ...summary.finality.flatMap((f) => [
      { test: "finality" as const, condition: f.policy, measure: "recorded_successes", ...ratio(f.successes, f.trials) },
      {
        test: "finality" as const,
        condition: f.policy,
        measure: "recorded_successes_nonzero_delay",
        ...ratio(f.successesNonzeroDelay, f.trialsNonzeroDelay),
      },
      { test: "finality" as const, condition: f.policy, measure: "endpoint_terminal_disagreements", ...ratio(f.disagreements, f.trials) },
      {
        test: "finality" as const,
        condition: f.policy,
        measure: "endpoint_terminal_disagreements_nonzero_delay",
        ...ratio(f.disagreementsNonzeroDelay, f.trialsNonzeroDelay),
      },
    ]),
    ...summary.separation.flatMap((s) => [
      { test: "separation" as const, condition: s.condition, measure: "exposures_per_pair", ...ratio(s.exposures, s.pairs) },
      {
        test: "separation" as const,
        condition: s.condition,
        measure: "analysis_units_per_run_row",
        ...countRatio(s.analysisUnits, s.runRows),
      },
      {
        test: "separation" as const,
        condition: s.condition,
        measure: "mean_score_b",
        numerator: null,
        denominator: null,
        value: s.meanScoreB,
        wilson95_lower: null,
        wilson95_upper: null,
      },
    ]),
  ];
}

/** The JSON export: the records, and the comparison with the paper's published rows. */
export function table2Export(summary: ReplaySummary) {
  return {
    experimentId: summary.experimentId,
    grid: summary.config,
    records: table2Records(summary),
    paper: paperTable2Comparison(summary),
  };
}

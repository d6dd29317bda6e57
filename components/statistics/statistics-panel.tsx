import { Alert } from "@/components/ui/alert";
import { Section } from "@/components/ui/page-header";
import { DataTable, RowHead, Td } from "@/components/ui/table";
import { percent, ratio } from "@/lib/replay/format";
import type { ExclusionRuleAnswer, PassKAnswer, RateAnswer, SensitivityRowAnswer, UnitsAnswer } from "@/lib/statistics/answer-schema";
import type { Interval } from "@/lib/statistics/wilson";

/** "[68.6%, 80.5%]", or a dash when nothing was observed. */
export const intervalText = (interval: Interval | null) => (interval ? `[${(100 * interval[0]).toFixed(1)}%, ${(100 * interval[1]).toFixed(1)}%]` : "—");

/**
 * The statistics answer (docs/statistics.md) as tables: each rate n/N with its population and
 * Wilson interval, rows against analysis units with the design effect, pass^k or why it is
 * refused, and the headline under the declared rule and its alternatives.
 */
export function StatisticsPanel({ rates, units, passK, exclusionRule, sensitivity }: { rates: RateAnswer[]; units: UnitsAnswer; passK: PassKAnswer; exclusionRule: ExclusionRuleAnswer; sensitivity: SensitivityRowAnswer[] }) {
  const rule = `exclusion rule version ${exclusionRule.version} (SHA-256 ${exclusionRule.hash.slice(0, 12)}…)`;
  return (
    <Section
      title="Statistics"
      id="statistics"
      description={`Every rate is n/N with its 95% Wilson interval, under ${rule}: ${exclusionRule.declaredBy}.`}
      data-testid="statistics"
    >
      <DataTable caption="Rates, each over its own population" columns={["Rate", "Population", "n/N", "Rate", "95% Wilson"]} numericColumns={[2, 3, 4]} testId="statistics-rates">
        {rates.map((r) => (
          <tr key={r.name}>
            <RowHead>{r.name}</RowHead>
            <Td className="text-muted-foreground">{r.population}</Td>
            <Td numeric>{ratio(r.n, r.N)}</Td>
            <Td numeric>{percent(r.n, r.N)}</Td>
            <Td numeric>{intervalText(r.wilson95)}</Td>
          </tr>
        ))}
      </DataTable>
      <DataTable
        caption={`Rows against analysis units (${units.outcome}): ${units.runRows} run rows in ${units.analysisUnits} analysis units, design effect ${units.designEffect === null ? "—" : units.designEffect.toFixed(2)}`}
        columns={["Counted over", "n/N", "Rate", "Effective N", "95% Wilson"]}
        numericColumns={[1, 2, 3, 4]}
        testId="statistics-units"
      >
        <tr>
          <RowHead>rows (every run a separate trial)</RowHead>
          <Td numeric>{ratio(units.rows.n, units.rows.N)}</Td>
          <Td numeric>{percent(units.rows.n, units.rows.N)}</Td>
          <Td numeric>{units.rows.N}</Td>
          <Td numeric>{intervalText(units.rows.wilson95)}</Td>
        </tr>
        <tr>
          <RowHead>analysis units (N / design effect)</RowHead>
          <Td numeric>{ratio(units.rows.n, units.rows.N)}</Td>
          <Td numeric>{percent(units.rows.n, units.rows.N)}</Td>
          <Td numeric>{units.effectiveN.toFixed(2)}</Td>
          <Td numeric>{intervalText(units.unitBasedWilson95)}</Td>
        </tr>
      </DataTable>
      {passK.available ? (
        <DataTable caption="pass^k and pass@k (τ-bench), every trial its own unit" columns={["k", "pass^k", "pass@k"]} numericColumns={[0, 1, 2]} testId="statistics-pass-k">
          {passK.values.map((v) => (
            <tr key={v.k}>
              <RowHead className="num">{v.k}</RowHead>
              <Td numeric>{v.value.toFixed(3)}</Td>
              <Td numeric>{v.passAtK.toFixed(3)}</Td>
            </tr>
          ))}
        </DataTable>
      ) : (
        <Alert tone="warning" title="pass^k is not computed" role="note" data-testid="statistics-pass-k-refused">
          <p>{passK.reason}.</p>
        </Alert>
      )}
      <DataTable caption={`Sensitivity: the headline under the declared rule and each alternative`} columns={["Measure", "Rule", "n/N", "Rate", "95% Wilson"]} numericColumns={[2, 3, 4]} testId="statistics-sensitivity">
        {sensitivity.map((row) => (
          <tr key={`${row.measure}/${row.rule}`}>
            <RowHead>{row.measure}</RowHead>
            <Td>{row.rule}</Td>
            <Td numeric>{ratio(row.n, row.N)}</Td>
            <Td numeric>{percent(row.n, row.N)}</Td>
            <Td numeric>{intervalText(row.wilson95)}</Td>
          </tr>
        ))}
      </DataTable>
    </Section>
  );
}

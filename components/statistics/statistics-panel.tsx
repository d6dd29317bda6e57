import { Alert } from "@/components/ui/alert";
import { Section } from "@/components/ui/page-header";
import { RowsTable } from "@/components/ui/rows-table";
import { DataTable, RowHead, Td } from "@/components/ui/table";
import { percent, ratio } from "@/lib/format/numbers";
import type {
  ExclusionRuleAnswer,
  PassKAnswer,
  RateAnswer,
  RuleVersion,
  SensitivityRowAnswer,
  ThresholdCheckAnswer,
  UnitsAnswer,
} from "@/lib/statistics/answer-schema";
import type { ExclusionRule } from "@/lib/statistics/exclusion-rule";
import { Time } from "@/components/ui/time";
import { OpenOnRequest } from "@/components/ui/open-on-request";
import { LazyExclusionRuleChange } from "./lazy-exclusion-rule-change";
import { LazySensitivityChart } from "./lazy-sensitivity-chart";
import type { Interval } from "@/lib/statistics/wilson";

/** "[68.6%, 80.5%]", or a dash when nothing was observed. */
export const intervalText = (interval: Interval | null) =>
  interval ? `[${(100 * interval[0]).toFixed(1)}%, ${(100 * interval[1]).toFixed(1)}%]` : "—";

/**
 * The statistics answer (docs/statistics.md) as tables: each rate n/N with its population and
 * Wilson interval, rows against analysis units with the design effect, pass^k or why it is
 * refused, and the headline under the declared rule and its alternatives.
 */
export function StatisticsPanel({
  rates,
  units,
  passK,
  exclusionRule,
  sensitivity,
  thresholdChecks,
  legalActions,
  ruleHistory,
  ruleChange,
}: {
  rates: RateAnswer[];
  units: UnitsAnswer;
  passK: PassKAnswer;
  exclusionRule: ExclusionRuleAnswer;
  sensitivity: SensitivityRowAnswer[];
  thresholdChecks: ThresholdCheckAnswer[];
  /** Evaluations only: shown here when it cannot be computed (when it can, it is one of `rates`). */
  legalActions?: { available: true } | { available: false; reason: string };
  /** Every stored version of the rule, newest first. */
  ruleHistory?: RuleVersion[];
  /** Given to those who may declare the rule's next version (editors and admins): the form below the history. */
  ruleChange?: { kind: "experiment" | "evaluation"; id: string };
}) {
  const warnings = thresholdChecks.flatMap((check) => (check.warning ? [check.warning] : []));
  const rule = `exclusion rule version ${exclusionRule.version} (SHA-256 ${exclusionRule.hash.slice(0, 12)}…)`;
  return (
    <Section
      title="Statistics"
      id="statistics"
      description={`Every rate is n/N with its 95% Wilson interval, under exclusion rule version ${exclusionRule.version}.`}
      howToRead={
        <>
          Every rate is n/N with its 95% Wilson interval, under {rule}: version {exclusionRule.version}, stored{" "}
          <Time iso={exclusionRule.declared.at} />
          {exclusionRule.declared.by ? ` by ${exclusionRule.declared.by}` : ""}: {exclusionRule.declared.reason}
          {exclusionRule.declared.note ? ` (${exclusionRule.declared.note})` : ""}.
        </>
      }
      data-testid="statistics"
    >
      <RowsTable
        caption="Rates, each over its own population"
        columns={["Rate", "Population", "n/N", "Rate", "95% Wilson"]}
        numericColumns={[2, 3, 4]}
        testId="statistics-rates"
        cellClassNames={{ 1: "text-muted-foreground" }}
        rows={rates.map((r) => [r.name, r.population, ratio(r.n, r.N), percent(r.n, r.N), intervalText(r.wilson95)])}
      />
      {legalActions && !legalActions.available ? (
        <Alert tone="info" title="The legal-action rate is not computed" role="note" data-testid="statistics-legal-actions-refused">
          <p>{legalActions.reason}.</p>
        </Alert>
      ) : null}
      <UnitsTable
        units={units}
        testId="statistics-units"
        caption={`Rows against analysis units (${units.outcome}): N = ${units.rows.N} rows counted under the rule, in ${units.countedUnits} analysis units (the effective N is at most that); of ${units.runRows} stored run rows, scored or not, in ${units.analysisUnits} analysis units; design effect ${units.designEffect === null ? "—" : units.designEffect.toFixed(2)}`}
      />
      {passK.available ? (
        <DataTable
          caption="pass^k and pass@k (τ-bench), every trial its own unit"
          columns={["k", "pass^k", "pass@k"]}
          numericColumns={[0, 1, 2]}
          testId="statistics-pass-k"
        >
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
      <RowsTable
        caption="Sensitivity: the headline under the declared rule and each alternative"
        columns={["Measure", "Rule", "n/N", "Rate", "95% Wilson"]}
        numericColumns={[2, 3, 4]}
        testId="statistics-sensitivity"
        rows={sensitivity.map((row) => [row.measure, row.rule, ratio(row.n, row.N), percent(row.n, row.N), intervalText(row.wilson95)])}
      />
      {thresholdChecks.length > 0 ? (
        warnings.length > 0 ? (
          <Alert tone="warning" title="A conclusion changes between rules" role="alert" data-testid="statistics-threshold-warnings">
            <ul className="list-disc space-y-1 pl-5">
              {warnings.map((warning) => (
                <li key={warning}>{warning}</li>
              ))}
            </ul>
          </Alert>
        ) : (
          <p className="text-sm text-muted-foreground" data-testid="statistics-threshold-warnings">
            Target {(100 * thresholdChecks[0]!.threshold).toFixed(1)}%:{" "}
            {thresholdChecks.map((c) => `${c.measure}: ${c.verdict}`).join("; ")}.
          </p>
        )
      ) : null}
      {[...new Set(sensitivity.map((row) => row.measure))].map((measure) => {
        const rows = sensitivity.filter((row) => row.measure === measure);
        const text = rows
          .map((row) => `${row.rule}: ${ratio(row.n, row.N)} (${percent(row.n, row.N)}), 95% Wilson ${intervalText(row.wilson95)}`)
          .join("; ");
        return (
          <figure key={measure} className="m-0 flex flex-col gap-2 rounded-lg border border-border bg-card p-4 shadow-xs">
            <div role="img" aria-label={`${measure} under each rule. ${text}`}>
              <LazySensitivityChart rows={rows} threshold={exclusionRule.rule.threshold} />
            </div>
            <figcaption className="text-xs text-muted-foreground">
              <strong className="text-foreground">{measure} under each rule.</strong> Bars are the rate, whiskers its 95% Wilson interval
              {exclusionRule.rule.threshold === undefined ? "" : "; the dashed line is the declared target"}.
            </figcaption>
          </figure>
        );
      })}
      {ruleHistory ? (
        <DataTable
          caption="The exclusion rule's versions, newest first: every figure above used the newest"
          columns={["Version", "SHA-256", "Rule", "Stored", "Reason"]}
          numericColumns={[0]}
          testId="exclusion-rule-history"
        >
          {ruleHistory.map((v) => (
            <tr key={v.version}>
              <RowHead className="num">{v.version}</RowHead>
              <Td>
                <code title={v.hash}>{v.hash.slice(0, 12)}…</code>
              </Td>
              <Td className="text-muted-foreground">{ruleWords(v.rule)}</Td>
              <Td>
                <Time iso={v.createdAt} />
                {v.createdBy ? <span className="block text-xs text-muted-foreground">{v.createdBy}</span> : null}
              </Td>
              <Td>{v.reason}</Td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      {ruleChange && ruleHistory?.[0] ? (
        <OpenOnRequest label="Declare a new version of the rule" testId="open-rule-change">
          <LazyExclusionRuleChange subject={ruleChange} current={ruleHistory[0]} />
        </OpenOnRequest>
      ) : null}
    </Section>
  );
}

/** A rule in a line: each class's treatment, the unresolved label's, the population and the target. */
function ruleWords(rule: ExclusionRule): string {
  const classes = Object.entries(rule.classes).map(([c, t]) => `${c.replaceAll("_", " ")}: ${t.replaceAll("_", " ")}`);
  return [
    ...classes,
    `unresolved: ${rule.unresolved.replaceAll("_", " ")}`,
    ...(rule.eligiblePopulation ? [`eligible: ${rule.eligiblePopulation}`] : []),
    ...(rule.threshold === undefined ? [] : [`target ${(100 * rule.threshold).toFixed(1)}%`]),
  ].join("; ");
}

/** A rate counted over rows (every run a trial) and over analysis units (N / design effect), with its Wilson interval each. */
export function UnitsTable({
  units,
  caption,
  testId,
}: {
  units: Pick<UnitsAnswer, "rows" | "effectiveN" | "unitBasedWilson95">;
  caption: string;
  testId: string;
}) {
  return (
    <DataTable
      caption={caption}
      columns={["Counted over", "n/N", "Rate", "Effective N", "95% Wilson"]}
      numericColumns={[1, 2, 3, 4]}
      testId={testId}
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
  );
}

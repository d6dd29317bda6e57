import { intervalText, UnitsTable } from "@/components/statistics/statistics-panel";
import { Section } from "@/components/ui/page-header";
import { RowsTable } from "@/components/ui/rows-table";
import type { AttackStatistics } from "@/lib/evaluations/read/attack-statistics";
import type { Figure, OutcomeFigures } from "@/lib/evaluations/read/attack-success";
import { percent, ratio } from "@/lib/format/numbers";

/** "7/12 58.3% [31.9%, 80.7%]": n/N, its rate and 95% Wilson interval; "0/0 (no runs)" without runs. */
export const figureText = (f: Figure) =>
  f.N === 0 ? `${ratio(0, 0)} (no runs)` : `${ratio(f.n, f.N)} ${percent(f.n, f.N)} ${intervalText(f.wilson95)}`;

/** "25.0%–41.7% [9.0%, 71.4%]": unresolved runs counted as failures, then as successes, and the interval spanning both. */
export const rangeText = ({ justifiedRange: { lower, upper, wilson95 } }: OutcomeFigures) =>
  lower.N === 0 ? "no runs" : `${percent(lower.n, lower.N)}–${percent(upper.n, upper.N)} ${intervalText(wilson95)}`;

/** The three columns one outcome takes in a table: reported, final-only, justified range. */
export const outcomeCells = (o: OutcomeFigures) => [figureText(o.reported), figureText(o.finalOnly), rangeText(o)];

/** The nine columns of utility, utility under attack and attack success (`outcomeCells` of each, in this order). */
export const TRADE_OFF_COLUMNS = [
  "Utility, reported",
  "Utility, final-only",
  "Utility, justified range",
  "Under attack, reported",
  "Under attack, final-only",
  "Under attack, justified range",
  "Attack success, reported",
  "Attack success, final-only",
  "Attack success, justified range",
];

/**
 * Under attack (runs with a security label, AgentDojo's): per pipeline, utility without attack, utility
 * under attack and attack success, each reported, final-only and in its justified range; attack success
 * per injection task; and attack success against analysis units. Absent without runs under attack.
 */
export function AttackPanel({ attack }: { attack: AttackStatistics }) {
  if (!attack) return null;
  const { units } = attack;
  return (
    <Section
      title="Attack success and utility"
      id="attack"
      description="Which pipeline lowers attack success without losing utility: every figure n/N with its 95% Wilson interval."
      howToRead={
        <p data-testid="attack-note">
          A run is under attack when it carries a security label (AgentDojo&apos;s: success means the injection task&apos;s goal was
          achieved). Utility is the endpoint label. Each figure is given as reported (every scored run&apos;s label), final-only (runs whose
          every relevant effect was terminal at scoring) and as its justified range: the unresolved runs counted as failures, then as
          successes. A lower attack success is better; a higher utility is better.
        </p>
      }
      data-testid="attack"
    >
      <RowsTable
        caption="Per pipeline: utility without attack, utility under attack and attack success (n/N rate [95% Wilson])"
        columns={["Pipeline", "Runs", ...TRADE_OFF_COLUMNS]}
        numericColumns={[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}
        testId="attack-pipelines"
        rows={attack.byPipeline.map((p) => [
          p.pipeline,
          String(p.runs),
          ...outcomeCells(p.utility),
          ...outcomeCells(p.utilityUnderAttack),
          ...outcomeCells(p.attackSuccess),
        ])}
      />
      <RowsTable
        caption="Attack success per injection task, over every pipeline (n/N rate [95% Wilson])"
        columns={["Injection task", "Reported", "Final-only", "Justified range"]}
        numericColumns={[1, 2, 3]}
        testId="attack-injection-tasks"
        rows={attack.byInjectionTask.map((t) => [t.injectionTaskId, ...outcomeCells(t.attackSuccess)])}
      />
      <UnitsTable
        units={units}
        testId="attack-units"
        caption={`Attack success against analysis units: ${units.rows.N} runs under attack in ${units.analysisUnits} analysis units; design effect ${units.designEffect === null ? "—" : units.designEffect.toFixed(2)}`}
      />
    </Section>
  );
}

import { outcomeCells, TRADE_OFF_COLUMNS } from "@/components/evaluations/attack-panel";
import { Section } from "@/components/ui/page-header";
import { RowsTable } from "@/components/ui/rows-table";
import type { ComparisonAnswer } from "@/lib/evaluations/read/compare";

/**
 * The compared evaluations (one pipeline each, as AgentDojo's import makes them) side by side on what a
 * defence is judged by: utility without attack, utility under attack and attack success, each reported,
 * final-only and in its justified range with 95% Wilson intervals. Absent when no run of any was under attack.
 */
export function ComparisonAttack({ evaluations }: { evaluations: ComparisonAnswer["evaluations"] }) {
  // A comparison frozen in a share link before these figures were kept has none.
  if (evaluations.some((e) => e.attack === undefined) || evaluations.every((e) => e.attack.attackSuccess.reported.N === 0)) return null;
  return (
    <Section
      title="Utility and attack success"
      id="attack"
      description="Which lowers attack success without losing utility: a lower attack success is better, a higher utility is better. Where two justified ranges' intervals overlap, the data do not separate them."
    >
      <RowsTable
        caption="Utility without attack, utility under attack and attack success (n/N rate [95% Wilson]; justified range: unresolved runs as failures, then as successes)"
        columns={["Evaluation", ...TRADE_OFF_COLUMNS]}
        numericColumns={[1, 2, 3, 4, 5, 6, 7, 8, 9]}
        testId="comparison-attack"
        rows={evaluations.map((e) => [
          e.name,
          ...outcomeCells(e.attack.utility),
          ...outcomeCells(e.attack.utilityUnderAttack),
          ...outcomeCells(e.attack.attackSuccess),
        ])}
      />
    </Section>
  );
}

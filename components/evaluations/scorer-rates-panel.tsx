import { Section } from "@/components/ui/page-header";
import { DataTable, Td } from "@/components/ui/table";
import type { EvaluationSummary } from "@/lib/evaluations/read/read-boundary";
import { percent, ratio } from "@/lib/format/numbers";

const metricsText = (metrics: Record<string, number>) =>
  Object.entries(metrics)
    .map(([metric, value]) => `${metric} ${Number(value.toFixed(4))}`)
    .join(", ");

/** Every scorer the runs were scored by, the labelling one first: each one's rate as the harness reported it, and its own metrics. */
export function ScorerRatesPanel({ scorers }: { scorers: EvaluationSummary["scorers"] }) {
  if (scorers.length === 0) return null;
  return (
    <Section
      title="Every scorer"
      id="scorers"
      description="Each scorer's successes of the runs it gave a readable value, beside the one that labels the runs."
      howToRead={
        <p data-testid="scorers-note">
          The harness scored each run with these scorers; one labels the runs (the success rates above come from it). A scorer&apos;s rate
          counts the runs whose value reads as a number at or above the run&apos;s threshold, of the runs whose value reads as a number (a
          dict or a list is no label: counted as unreadable), as recorded and without the finality audit. The metrics are the harness&apos;s
          own, as it computed them for each log.
        </p>
      }
    >
      <DataTable
        caption="Every scorer's rate, the labelling one first"
        columns={["Scorer", "Labels the runs", "Successes", "Rate", "Unreadable values", "The harness's metrics"]}
        testId="scorer-rates"
      >
        {scorers.map((s) => (
          <tr key={s.name} data-scorer={s.name}>
            <Td>
              <code>{s.name}</code>
            </Td>
            <Td>{s.labelling ? "yes" : "no"}</Td>
            <Td>{ratio(s.successes, s.n)}</Td>
            <Td>{percent(s.successes, s.n)}</Td>
            <Td>{s.unreadable}</Td>
            <Td>
              {s.metricsByLog.length === 0
                ? "none reported"
                : s.metrics
                  ? metricsText(s.metrics)
                  : s.metricsByLog.map((log) => `${log.source}: ${metricsText(log.metrics)}`).join("; ")}
            </Td>
          </tr>
        ))}
      </DataTable>
    </Section>
  );
}

import { Section } from "@/components/ui/page-header";
import { DataTable, Td } from "@/components/ui/table";
import type { HarnessMetric } from "@/lib/evaluations/harness-metrics";

/** The figures the harness reported itself, by log: beside the success rates above, which are a different figure (thresholded). */
export function HarnessMetricsPanel({ metrics }: { metrics: readonly HarnessMetric[] }) {
  if (metrics.length === 0) return null;
  return (
    <Section
      title="The harness's own figures"
      id="harness-metrics"
      description="As the harness computed them over its own scores: not the success rates above."
      howToRead={
        <p data-testid="harness-metrics-note">
          As the harness computed them over its own scores, for each log imported (Inspect&apos;s <code>results.scores</code>): a mean or an
          accuracy counts partial credit in part. The success rates above are another figure: a run succeeds only when its score is at or
          above its threshold, and only final runs count as successes.
        </p>
      }
    >
      <DataTable caption="The harness's own figures, by log" columns={["Log", "Scorer", "Metric", "Value"]} testId="harness-metrics">
        {metrics.map((m) => (
          <tr key={`${m.source}\u0000${m.scorer}\u0000${m.metric}`}>
            <Td>
              <code>{m.source}</code>
            </Td>
            <Td>{m.scorer}</Td>
            <Td>{m.metric}</Td>
            <Td>{Number(m.value.toFixed(4))}</Td>
          </tr>
        ))}
      </DataTable>
    </Section>
  );
}

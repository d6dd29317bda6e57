import Link from "next/link";
import { Panel } from "@/components/ui/card";
import { DataTable, RowHead, Td } from "@/components/ui/table";
import { percent, ratio } from "@/lib/format/numbers";
import type { TraceResults } from "@/lib/replay/rules/summary-schema";

/**
 * An experiment of library traces, per suite and per trace: at each delay, which real tasks a snapshot
 * scorer (the endpoint label) would mislabel and in how many trials, and how often run B of a
 * shared-state pair was exposed to A's writes.
 */
export function TraceResultsPanel({ results }: { results: TraceResults }) {
  const delays = [...new Set(results.traces.flatMap((t) => t.finality.map((f) => f.delayMs)))].sort((a, b) => a - b);
  return (
    <div className="space-y-4" data-testid="trace-results">
      <Panel
        title="Per suite: real tasks a snapshot scorer mislabels"
        description="At each delay: the suite's tasks whose snapshot label differed from the terminal label in at least one trial, and the trials so mislabelled."
      >
        <DataTable
          caption="Snapshot mislabels per suite and delay"
          columns={["Suite", "Delay", "Tasks mislabelled / tasks", "Trials mislabelled / trials"]}
          numericColumns={[1, 2, 3]}
          testId="trace-results-suites"
        >
          {results.suites.map((s) => (
            <tr key={`${s.suite}-${s.delayMs}`}>
              <RowHead>{s.suite}</RowHead>
              <Td numeric>{s.delayMs} ms</Td>
              <Td numeric>
                {ratio(s.tasksMislabelled, s.tasks)} ({percent(s.tasksMislabelled, s.tasks)})
              </Td>
              <Td numeric>
                {ratio(s.mislabelled, s.trials)} ({percent(s.mislabelled, s.trials)})
              </Td>
            </tr>
          ))}
        </DataTable>
      </Panel>
      <Panel
        title="Per trace"
        description="Snapshot trials whose label differed from the terminal one, by delay; and the shared-state pairs whose run B scored a value A's writes had replaced."
      >
        <DataTable
          caption="Snapshot mislabels and shared-state exposures per trace"
          columns={[
            "Trace",
            "State-changing calls",
            ...delays.map((d) => `Snapshot mislabelled at ${d} ms`),
            "Shared-state exposures / pairs",
          ]}
          numericColumns={[1, ...delays.map((_, i) => i + 2), delays.length + 2]}
          testId="trace-results-traces"
        >
          {results.traces.map((t) => {
            const shared = t.separation.filter((s) => s.condition === "shared");
            return (
              <tr key={t.taskId}>
                <RowHead>
                  <Link href={`/traces?task=${encodeURIComponent(t.taskId)}`}>{t.taskId}</Link>
                </RowHead>
                <Td numeric>{t.writes}</Td>
                {delays.map((d) => {
                  const cell = t.finality.find((f) => f.policy === "snapshot" && f.delayMs === d);
                  return (
                    <Td key={d} numeric>
                      {cell ? ratio(cell.disagreements, cell.trials) : "n/a"}
                    </Td>
                  );
                })}
                <Td numeric>
                  {shared.length
                    ? ratio(
                        shared.reduce((n, c) => n + c.exposures, 0),
                        shared.reduce((n, c) => n + c.pairs, 0),
                      )
                    : "n/a"}
                </Td>
              </tr>
            );
          })}
        </DataTable>
      </Panel>
    </div>
  );
}

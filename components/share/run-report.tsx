import { Facts } from "@/components/ui/facts";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader, Section } from "@/components/ui/page-header";
import { DataTable, RowHead, Td } from "@/components/ui/table";
import { StateBadge } from "@/components/ui/badge";
import { conditionLabel, describeRun, shortId } from "@/lib/format/runs";
import { formatDuration, formatSinceStart } from "@/lib/format/time";
import type { RunShareContent } from "@/lib/share/resources";

const show = (value: unknown) => (value === null || value === undefined ? "none" : String(value));

/** One run as shared: its labels, times (since its start), evidence and open-effects records, read-only. */
export function RunReport({ content }: { content: RunShareContent }) {
  const { run, experiment, openEffects } = content;
  const since = (ms: number | null) => formatSinceStart(ms, run.startedAtMs);
  return (
    <>
      <PageHeader
        title={
          <>
            Run <code>{shortId(run.id)}</code>
          </>
        }
        meta={
          <>
            <span>{describeRun(run)}</span>
            <span>
              of experiment <code>{experiment.id}</code>
            </span>
            <StateBadge state={experiment.state} />
          </>
        }
      />
      <Facts
        items={[
          ["Run id", <code key="id">{run.id}</code>],
          ["Test", run.test],
          ["Condition", conditionLabel(run.condition)],
          ["Schedule, repetition", `${run.scheduleId}, ${run.repetition}`],
          ["Nominal delay", `${run.delayMs} ms`],
          ["Role", run.role],
          ["Endpoint label", show(run.endpointLabel)],
          ["Terminal label", show(run.terminalLabel)],
          ["Recorded label", show(run.recordedLabel)],
          ["Final at scoring", show(run.finalAtScoring)],
          ["Exposure", show(run.exposure)],
          ["Classification", run.classification],
          ["Inherited state", run.inheritedState],
          ["Measured delay", run.measuredDelayMs === null ? "none" : formatDuration(run.measuredDelayMs)],
          ["Endpoint", since(run.endpointAtMs)],
          ["Scored", since(run.scoredAtMs)],
          ["Ended", since(run.endedAtMs)],
        ]}
      />
      <Section title={`Open effects (${openEffects.length})`}>
        {openEffects.length === 0 ? (
          <EmptyState title="This run left no open-effects record" />
        ) : (
          <DataTable
            caption="Open-effects records (paper Table C.1)"
            columns={["Handle", "Action", "Resource", "Status at endpoint", "Terminal status", "Cross-run route"]}
          >
            {openEffects.map((e) => (
              <tr key={e.id}>
                <RowHead>
                  <code>{e.observationHandle}</code>
                </RowHead>
                <Td>{e.action}</Td>
                <Td>{e.resource}</Td>
                <Td>{e.endpointStatus}</Td>
                <Td>{e.terminalStatus}</Td>
                <Td>{e.crossRunRoute}</Td>
              </tr>
            ))}
          </DataTable>
        )}
      </Section>
      <Section title="Evidence">
        <pre className="max-h-[40rem] overflow-auto rounded-lg border border-border bg-muted p-3 text-xs" tabIndex={0}>
          {JSON.stringify(run.evidence, null, 2)}
        </pre>
      </Section>
    </>
  );
}

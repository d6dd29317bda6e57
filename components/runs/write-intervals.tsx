import { EmptyState } from "@/components/ui/empty-state";
import { DataTable, RowHead, Td } from "@/components/ui/table";
import { formatOffset, type WriteInterval } from "@/lib/experiments/read/timeline";
import { formatDuration } from "@/lib/format/time";

/** Each write the run made (every state-changing call of its trace): its open interval, status at the endpoint and how it ended. */
export function WriteIntervals({ writes }: { writes: readonly WriteInterval[] }) {
  if (writes.length === 0) return <EmptyState title="This run made no write" />;
  return (
    <DataTable
      caption="Writes: open interval from the request to the end the service recorded"
      columns={["Write", "Key, operation", "Status at endpoint", "Open interval", "Resolution"]}
      testId="run-writes"
    >
      {writes.map((w, i) => (
        <tr key={w.handle}>
          <RowHead>
            {i + 1} of {writes.length}
            {w.actor === "A" ? " (run A)" : ""}
          </RowHead>
          <Td className="[overflow-wrap:anywhere]">
            <code>{w.key}</code>, <code>{w.handle}</code>
          </Td>
          <Td>{w.statusAtEndpoint}</Td>
          <Td className="tabular-nums">
            {formatOffset(w.fromMs)} to{" "}
            {w.toMs === null ? "still open when the evidence ends" : `${formatOffset(w.toMs)} (${formatDuration(w.toMs - w.fromMs)})`}
            {w.endedByScoring === null ? null : (
              <span className="block text-xs text-muted-foreground">{w.endedByScoring ? "ended by scoring" : "ended after scoring"}</span>
            )}
          </Td>
          <Td>{w.resolution}</Td>
        </tr>
      ))}
    </DataTable>
  );
}

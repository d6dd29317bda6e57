import { DataTable, RowHead, Td } from "@/components/ui/table";
import { cn } from "@/components/ui/cn";
import { formatDuration, formatElapsed } from "@/lib/format/time";
import type { SpanRow } from "@/lib/evaluations/read/span-timeline";

const STATUS = ["unset", "ok", "error"] as const;

/**
 * A run's OpenTelemetry spans (received over OTLP), as a trace waterfall: each span indented under
 * its parent, its bar placed by start and length within the trace. The numbers are in the cells;
 * the bars repeat them for the eye (hidden from screen readers).
 */
export function SpanTimeline({ rows, truncated }: { rows: readonly SpanRow[]; truncated: boolean }) {
  return (
    <DataTable
      caption={`The run's spans as received over OTLP${truncated ? " (the first by start: more were received)" : ""}`}
      columns={[
        "Span",
        "Since start",
        "Duration",
        "Status",
        <span key="w" aria-hidden="true">
          Waterfall
        </span>,
      ]}
      numericColumns={[1, 2]}
      testId="run-spans"
      maxHeight="32rem"
    >
      {rows.map((row) => (
        <tr key={row.spanId}>
          <RowHead className="max-w-md [overflow-wrap:anywhere]" style={{ paddingLeft: `${0.75 + row.depth * 1.25}rem` }}>
            <span className="font-normal">{row.name || <em>unnamed span</em>}</span>
            {row.tool ? <code className="ml-2 text-xs text-muted-foreground">{row.tool}</code> : null}
          </RowHead>
          <Td className="tabular-nums whitespace-nowrap">{formatElapsed(row.offsetMs)}</Td>
          <Td className="tabular-nums whitespace-nowrap">{formatDuration(row.durationMs)}</Td>
          <Td className={cn(row.statusCode === 2 && "font-medium text-danger")}>{STATUS[row.statusCode] ?? row.statusCode}</Td>
          <Td aria-hidden="true" className="min-w-48">
            <div className="relative h-3 rounded-sm bg-muted">
              <div
                className={cn(
                  "absolute inset-y-0 rounded-sm",
                  row.statusCode === 2 ? "bg-danger" : row.tool ? "bg-primary" : "bg-muted-foreground",
                )}
                style={{
                  left: `${row.leftPercent.toFixed(2)}%`,
                  width: `${Math.min(row.widthPercent, 100 - row.leftPercent).toFixed(2)}%`,
                }}
              />
            </div>
          </Td>
        </tr>
      ))}
    </DataTable>
  );
}

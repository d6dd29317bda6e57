import { EmptyState } from "@/components/ui/empty-state";
import { DataTable, RowHead, Td } from "@/components/ui/table";
import { formatOffset, type TimelineEvent } from "@/lib/experiments/read/timeline";
import { formatElapsed } from "@/lib/format/time";
import { cn } from "@/components/ui/cn";

const KIND_LABELS: Record<TimelineEvent["kind"], string> = {
  trace: "trace step",
  request: "request",
  acknowledgement: "acknowledgement",
  due: "due",
  endpoint: "endpoint",
  cancellation: "cancellation",
  application: "application",
  failure: "failure",
  reset: "reset",
  initialisation: "initialisation",
  read: "read",
  write: "write",
  inconclusive: "inconclusive evidence",
  scoring: "scoring",
  end: "end",
  voided_attempt: "voided attempt",
};

/**
 * The run's events in order, as a table whose first column is the time since the run's start
 * (never a raw service-clock reading). The bar repeats the offset visually (hidden from screen
 * readers, which get the number).
 */
export function RunTimeline({
  events,
  role,
  offsets = "ms",
}: {
  events: readonly TimelineEvent[];
  role: string;
  /** "ms": a replay's service clock, to the microsecond; "elapsed": an agent's run, in the unit that fits. */
  offsets?: "ms" | "elapsed";
}) {
  if (events.length === 0) return <EmptyState title="No event could be read from this run's evidence" />;
  const paired = events.some((e) => e.actor !== role);
  const formatAt = offsets === "ms" ? formatOffset : formatElapsed;
  const first = Math.min(0, ...events.map((e) => e.offsetMs));
  const span = Math.max(...events.map((e) => e.offsetMs)) - first || 1;
  return (
    <DataTable
      caption={`Timeline: time since this run's start${paired ? " (events of the paired run included)" : ""}`}
      columns={[
        "Since start",
        "Event",
        "Run",
        "What happened",
        <span key="p" aria-hidden="true">
          Position
        </span>,
      ]}
      numericColumns={[0]}
    >
      {events.map((event, i) => (
        <tr key={i} className={event.actor === role ? undefined : "text-muted-foreground"}>
          <RowHead className="text-right tabular-nums whitespace-nowrap">{formatAt(event.offsetMs)}</RowHead>
          <Td className="whitespace-nowrap">{KIND_LABELS[event.kind]}</Td>
          <Td>
            {event.actor === "single" ? "this trial" : event.actor === role ? `${event.actor} (this run)` : `${event.actor} (paired run)`}
          </Td>
          <Td>{event.label}</Td>
          <Td aria-hidden="true" className="min-w-40">
            <div className="relative h-3 rounded-sm bg-muted">
              <div
                className={cn(
                  "absolute inset-y-0 left-0 min-w-0.5 rounded-sm",
                  event.actor === role || event.actor === "single" ? "bg-primary" : "bg-muted-foreground",
                )}
                style={{ width: `${(((event.offsetMs - first) / span) * 100).toFixed(2)}%` }}
              />
            </div>
          </Td>
        </tr>
      ))}
    </DataTable>
  );
}

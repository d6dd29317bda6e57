import { formatOffset, type TimelineEvent } from "@/lib/dashboard/timeline";
import styles from "./runs.module.css";

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
  scoring: "scoring",
  end: "end",
  voided_attempt: "voided attempt",
};

/**
 * The run's events in service-clock order, as a table whose first column is the offset from the
 * run's start in ms. The bar repeats the offset visually (hidden from screen readers, which get the number).
 */
export function RunTimeline({ events, role }: { events: readonly TimelineEvent[]; role: string }) {
  if (events.length === 0) return <p className="muted">No event could be read from this run&apos;s evidence.</p>;
  const first = Math.min(0, ...events.map((e) => e.offsetMs));
  const span = Math.max(...events.map((e) => e.offsetMs)) - first || 1;
  return (
    <div className="table-scroll">
      <table>
        <caption>Timeline: milliseconds from this run&apos;s start, on the service&apos;s clock (events of the paired run included)</caption>
        <thead>
          <tr>
            <th scope="col">Offset (ms)</th>
            <th scope="col">Event</th>
            <th scope="col">Run</th>
            <th scope="col">What happened</th>
            <th scope="col">
              <span aria-hidden="true">Position</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {events.map((event, i) => (
            <tr key={i} className={event.actor === role ? undefined : styles.otherRun}>
              <th scope="row" className="num">
                {formatOffset(event.offsetMs)}
              </th>
              <td className="nowrap">{KIND_LABELS[event.kind]}</td>
              <td>{event.actor === "single" ? "this trial" : event.actor === role ? `${event.actor} (this run)` : `${event.actor} (paired run)`}</td>
              <td>{event.label}</td>
              <td aria-hidden="true">
                <div className={styles.track}>
                  <div className={styles.bar} style={{ width: `${(((event.offsetMs - first) / span) * 100).toFixed(2)}%` }} />
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

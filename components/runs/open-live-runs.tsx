import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { Time } from "@/components/ui/time";
import type { OpenLiveRuns as Open } from "@/lib/evaluations/read/live-runs";

/** The live runs still open: in no figure until scored; each links to its page, which follows its events. */
export function OpenLiveRuns({ evaluationId, open }: { evaluationId: string; open: Open }) {
  if (open.total === 0) return null;
  return (
    <Alert
      tone="info"
      title={`${open.total} live run${open.total === 1 ? "" : "s"} open: in no figure until scored`}
      data-testid="open-live-runs"
    >
      <ul className="space-y-1">
        {open.runs.map((run) => (
          <li key={run.externalId}>
            <Link href={`/evaluations/${evaluationId}/runs/${encodeURIComponent(run.externalId)}`}>
              <code>{run.externalId}</code>
            </Link>{" "}
            (task <code>{run.taskId}</code>, {run.events} event{run.events === 1 ? "" : "s"}, opened{" "}
            <Time iso={run.openedAt.toISOString()} />, stored unscored at <Time iso={run.expiresAt.toISOString()} /> if not scored)
          </li>
        ))}
        {open.total > open.runs.length ? <li>and {open.total - open.runs.length} more</li> : null}
      </ul>
    </Alert>
  );
}

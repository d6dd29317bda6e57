import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import type { OpenLiveRuns } from "@/lib/evaluations/read/live-runs";

/**
 * The evaluation's live runs still open: in none of the figures below until scored, so said here
 * with their count and where they are listed (the runs page lists each, with its events).
 */
export async function OpenLiveRunsNote({ evaluationId, open }: { evaluationId: string; open: Promise<OpenLiveRuns> }) {
  const { total } = await open;
  if (total === 0) return null;
  return (
    <Alert tone="info" role="status" className="mb-4" data-testid="evaluation-open-live-runs">
      <p>
        {total} live run{total === 1 ? " is" : "s are"} open: in no figure on this page until scored.{" "}
        <Link href={`/evaluations/${evaluationId}/runs`}>List the open live run{total === 1 ? "" : "s"}</Link>
      </p>
    </Alert>
  );
}

import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { EvaluationRunReport } from "@/components/evaluations/evaluation-run-report";
import { SharedRefusal, SharedRunsBanner } from "@/components/share/shared-notice";
import { Alert } from "@/components/ui/alert";
import { PageHeader } from "@/components/ui/page-header";
import { Time } from "@/components/ui/time";
import { getDb } from "@/lib/db/web-process-db";
import { getEvaluationRun } from "@/lib/evaluations/read/evaluation-run";
import { liveRunRecorders } from "@/lib/evaluations/live/recorders";
import { runSpans } from "@/lib/evaluations/read/run-spans";
import { MESSAGES_PAGE, runMessages, runPageView } from "@/lib/evaluations/read/run-messages";
import { frozenRunState, runDetailAtFreeze } from "@/lib/share/frozen-runs";
import { openSharedEvaluation } from "@/lib/share/shared-evaluation";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Shared run", robots: { index: false, follow: false }, referrer: "no-referrer" };

/**
 * One run of a shared evaluation, read-only, for anyone holding the link: the token is checked on
 * every request. A frozen link shows the run as it stood then (the evidence recorded by then, its
 * finality under the frozen policy); a run stored after the freeze is not found, and one re-sent with
 * changes since is named but not shown, since its record as frozen is not kept.
 */
export default async function SharedRunPage({
  params,
  searchParams,
}: {
  params: Promise<{ token: string; externalId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { token, externalId: encoded } = await params;
  const { messagesFrom, searched } = runPageView(await searchParams);
  const externalId = decodeURIComponent(encoded);
  const db = getDb();
  const shared = await openSharedEvaluation(db, await headers(), token);
  if (shared.status === "refused") return <SharedRefusal refusal={shared.refusal} />;
  if (shared.status === "not_evaluation") notFound();
  const { evaluation, freeze } = shared;
  const stored = await getEvaluationRun(db, evaluation.id, externalId);
  // A run stored after a frozen link was made is not in what it shows; an open live run has no record yet.
  const state = stored && freeze ? frozenRunState(stored, freeze.at) : "as_frozen";
  if (!stored || state === "after_freeze") notFound();
  const runsHref = `/s/${token}/runs`;
  const crumbs = [
    { href: `/s/${token}`, label: evaluation.name },
    { href: runsHref, label: "Runs" },
  ];
  if (state === "changed_after_freeze")
    return (
      <>
        <SharedRunsBanner shared={shared} what="run" />
        <PageHeader
          crumbs={crumbs}
          title={
            <>
              Run <code>{stored.externalId}</code>
            </>
          }
        />
        <Alert tone="warning" role="alert" data-testid="run-changed-after-freeze" title="Re-sent after this link was frozen">
          <p>
            This run was sent again with changes <Time iso={stored.updatedAt.toISOString()} />, after the link was frozen. Its record as it
            was then is not kept, so this frozen link does not show it. Ask the sender for a new link to see it as it is now.
          </p>
        </Alert>
      </>
    );
  const run = freeze ? runDetailAtFreeze(stored, freeze) : stored;
  const [transcript, spans, recorders] = await Promise.all([
    runMessages(db, run.id, messagesFrom, MESSAGES_PAGE),
    runSpans(db, evaluation.id, externalId),
    liveRunRecorders(db, evaluation.id, externalId),
  ]);
  return (
    <EvaluationRunReport
      searched={searched}
      evaluation={evaluation}
      run={run}
      transcript={transcript}
      spans={spans}
      recorders={recorders}
      crumbs={crumbs}
      runsHref={runsHref}
      runHref={`${runsHref}/${encoded}`}
      notice={<SharedRunsBanner shared={shared} what="run" />}
    />
  );
}

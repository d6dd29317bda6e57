import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { COMPARE_RUNS_DESCRIPTION, CompareRunsView, loadComparedRuns } from "@/components/evaluations/compare-runs-view";
import { SharedRefusal, SharedRunsBanner } from "@/components/share/shared-notice";
import { PageHeader } from "@/components/ui/page-header";
import { getDb } from "@/lib/db/web-process-db";
import { runsToCompare } from "@/lib/evaluations/read/compare-runs";
import { getEvaluationRun, type EvaluationRunDetail } from "@/lib/evaluations/read/evaluation-run";
import { toolClassifier } from "@/lib/evaluations/policy";
import type { SearchParams } from "@/lib/http/input";
import { frozenRunState, runDetailAtFreeze } from "@/lib/share/frozen-runs";
import { openSharedEvaluation } from "@/lib/share/shared-evaluation";

export const dynamic = "force-dynamic";
export const metadata: Metadata = {
  title: "Two shared runs side by side",
  robots: { index: false, follow: false },
  referrer: "no-referrer",
};

/**
 * Two runs of a shared evaluation side by side, read-only, for anyone holding its link: the token is checked on every
 * request. A frozen link compares the runs as they stood then; a run stored after the freeze is not found, and one
 * re-sent with changes since is named but not shown, as on its own page.
 */
export default async function SharedCompareRunsPage({
  params,
  searchParams,
}: {
  params: Promise<{ token: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const { token } = await params;
  const search = await searchParams;
  const db = getDb();
  const shared = await openSharedEvaluation(db, await headers(), token);
  if (shared.status === "refused") return <SharedRefusal refusal={shared.refusal} />;
  if (shared.status === "not_evaluation") notFound();
  const path = `/s/${token}/compare-runs`;
  const chosen = runsToCompare(search);
  if (chosen.status === "redirect") redirect(`${path}?${chosen.query}`);
  const { evaluation, freeze } = shared;

  /** The run as the link shows it, or why it cannot be compared. */
  const runAsShared = async (side: "a" | "b", externalId: string): Promise<EvaluationRunDetail | string> => {
    const stored = await getEvaluationRun(db, evaluation.id, externalId);
    const state = stored && freeze ? frozenRunState(stored, freeze.at) : "as_frozen";
    if (!stored || state === "after_freeze") return `${side}: no stored run “${externalId}” in this evaluation`;
    if (state === "changed_after_freeze") return `${side}: run “${externalId}” was re-sent with changes after this link was frozen`;
    return freeze ? runDetailAtFreeze(stored, freeze) : stored;
  };
  const [runA, runB] =
    chosen.status === "ok" ? await Promise.all([runAsShared("a", chosen.a), runAsShared("b", chosen.b)]) : [chosen.message, chosen.message];
  const compared =
    typeof runA !== "string" && typeof runB !== "string"
      ? await loadComparedRuns(db, runA, runB, toolClassifier(freeze ? freeze.effectPolicy : evaluation.effectPolicy))
      : { problem: [...new Set([runA, runB].filter((r) => typeof r === "string"))].join("; ") };
  const runsHref = `/s/${token}/runs`;

  return (
    <>
      <SharedRunsBanner shared={shared} what="runs" />
      <PageHeader
        crumbs={[
          { href: `/s/${token}`, label: evaluation.name },
          { href: runsHref, label: "Runs" },
        ]}
        title="Two runs side by side"
        description={COMPARE_RUNS_DESCRIPTION}
      />
      <CompareRunsView
        path={path}
        search={search}
        listHref={runsHref}
        runHref={(externalId) => `${runsHref}/${encodeURIComponent(externalId)}`}
        compared={compared}
      />
    </>
  );
}

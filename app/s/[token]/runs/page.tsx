import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { EvaluationRunsList, RUNS_LIST_DESCRIPTION, runPageUnder } from "@/components/runs/evaluation-runs-list";
import { SharedRefusal, SharedRunsBanner } from "@/components/share/shared-notice";
import { PageHeader } from "@/components/ui/page-header";
import { getDb } from "@/lib/db/web-process-db";
import { listEvaluationRuns } from "@/lib/evaluations/read/evaluation-runs";
import { evaluationRunListQuerySchema } from "@/lib/evaluations/read/read-boundary";
import { parsePageQuery } from "@/lib/experiments/read/filters";
import type { SearchParams } from "@/lib/http/input";
import { matchesAuditAtFreeze } from "@/lib/share/frozen-runs";
import { openSharedEvaluation, runsAtFreeze } from "@/lib/share/shared-evaluation";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Shared runs", robots: { index: false, follow: false }, referrer: "no-referrer" };

/**
 * The runs of a shared evaluation, for anyone holding its link, with the owner's search, filters and sorts, read-only:
 * the token is checked on every request, and a frozen link lists only the runs stored by its time, each audited as it was then.
 */
export default async function SharedRunsPage({
  params,
  searchParams,
}: {
  params: Promise<{ token: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const { token } = await params;
  const db = getDb();
  const shared = await openSharedEvaluation(db, await headers(), token);
  if (shared.status === "refused") return <SharedRefusal refusal={shared.refusal} />;
  if (shared.status === "not_evaluation") notFound();
  const path = `/s/${token}/runs`;
  const parsed = parsePageQuery(evaluationRunListQuerySchema, await searchParams);
  const query = parsed.ok ? parsed.query : null;
  const { freeze } = shared;
  const listed = query
    ? await listEvaluationRuns(
        db,
        shared.evaluation.id,
        query,
        freeze ? { asOf: { at: freeze.at, policyVersion: freeze.effectPolicyVersion } } : {},
      )
    : null;
  // The SQL keeps, under the audit's filters, the runs whose audit may have moved since the freeze: audited as then here.
  const page =
    listed && freeze && query
      ? { ...listed, runs: (await runsAtFreeze(db, listed.runs, freeze)).filter((r) => matchesAuditAtFreeze(r, query)) }
      : listed;

  return (
    <>
      <SharedRunsBanner shared={shared} what="runs" />
      <PageHeader
        crumbs={[{ href: `/s/${token}`, label: shared.evaluation.name }]}
        title={<>Runs of “{shared.evaluation.name}”</>}
        description={RUNS_LIST_DESCRIPTION}
      />
      <EvaluationRunsList
        path={path}
        runHref={runPageUnder(path)}
        query={query}
        error={parsed.ok ? null : parsed.message}
        page={page}
        compareAction={`/s/${token}/compare-runs`}
      />
    </>
  );
}

import { ListX } from "lucide-react";
import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { notFound } from "next/navigation";
import { EvaluationRunsGrid } from "@/components/evaluations/evaluation-runs-grid";
import { FilterSelect, plainOptions } from "@/components/runs/filter-select";
import { FilterError, FilterForm, ListSummary, Pager } from "@/components/runs/list-chrome";
import { SharedRefusal, SharedRunsBanner } from "@/components/share/shared-notice";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { getDb } from "@/lib/db/client";
import { listEvaluationRuns } from "@/lib/evaluations/read/evaluation-runs";
import { evaluationRunListQuerySchema, type EvaluationRunListQuery } from "@/lib/evaluations/read/read-boundary";
import { FINALITIES, INHERITED_STATES, UNRESOLVED_REASONS } from "@/lib/evaluations/vocabulary";
import { parsePageQuery } from "@/lib/experiments/read/filters";
import type { SearchParams } from "@/lib/http/input";
import { matchesAuditAtFreeze } from "@/lib/share/frozen-runs";
import { openSharedEvaluation, runsAtFreeze } from "@/lib/share/shared-evaluation";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Shared runs", robots: { index: false, follow: false }, referrer: "no-referrer" };

type Filters = Omit<EvaluationRunListQuery, "cursor" | "limit">;
const FILTER_KEYS = ["finality", "reason", "tool", "unit", "inherited"] as const satisfies readonly (keyof Filters)[];

/**
 * The runs of a shared evaluation, for anyone holding its link: the token is checked on every request,
 * and a frozen link lists only the runs stored by its time, each audited as it was then.
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
  const runs =
    listed && freeze ? (await runsAtFreeze(db, listed.runs, freeze)).filter((r) => matchesAuditAtFreeze(r, query ?? {})) : listed?.runs;
  const href = (cursor?: string) => {
    const p = new URLSearchParams();
    for (const key of FILTER_KEYS) if (query?.[key]) p.set(key, String(query[key]));
    if (cursor) p.set("cursor", cursor);
    const s = p.toString();
    return s ? `${path}?${s}` : path;
  };

  return (
    <>
      <SharedRunsBanner shared={shared} what="runs" />
      <PageHeader
        crumbs={[{ href: `/s/${token}`, label: shared.evaluation.name }]}
        title={<>Runs of “{shared.evaluation.name}”</>}
        description="In the order they were stored. A run is final when every relevant effect was terminal at scoring; otherwise unresolved (not failed), with its earliest open effect's reason and tool. Runs connected through shared state share a unit."
      />
      <div className="space-y-4">
        <FilterForm action={path} label="Filter runs">
          <FilterSelect name="finality" label="Finality" value={query?.finality} options={plainOptions(FINALITIES)} />
          <FilterSelect
            name="reason"
            label="Why unresolved"
            value={query?.reason}
            options={UNRESOLVED_REASONS.map((r) => ({ value: r, label: r }))}
          />
          <FilterSelect name="inherited" label="Inherited state" value={query?.inherited} options={plainOptions(INHERITED_STATES)} />
          {query?.tool ? <input type="hidden" name="tool" value={query.tool} /> : null}
          {query?.unit ? <input type="hidden" name="unit" value={query.unit} /> : null}
        </FilterForm>
        {!parsed.ok ? (
          <FilterError message={parsed.message} resetHref={path} resetLabel="Show every run" />
        ) : runs && listed && (runs.length > 0 || listed.nextCursor) ? (
          <>
            <ListSummary testId="evaluation-runs-count" exports={null}>
              {runs.length} run{runs.length === 1 ? "" : "s"} on this page{query?.unit ? `, unit ${query.unit}` : ""}
            </ListSummary>
            <EvaluationRunsGrid
              runs={runs}
              runHref={(externalId) => `${path}/${encodeURIComponent(externalId)}`}
              unitHref={(unit) => `${path}?unit=${unit}`}
            />
            <Pager
              label="Pages of runs"
              firstHref={query?.cursor ? href() : null}
              nextHref={listed.nextCursor ? href(listed.nextCursor) : null}
            />
          </>
        ) : (
          <EmptyState
            icon={ListX}
            title={FILTER_KEYS.some((k) => query?.[k]) ? "No run matches these filters" : "No run was stored"}
            data-testid="evaluation-runs-empty"
          >
            <p>
              <Link href={path}>Show every run</Link>
            </p>
          </EmptyState>
        )}
      </div>
    </>
  );
}

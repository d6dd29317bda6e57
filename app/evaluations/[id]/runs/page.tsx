import { Columns2, ListX } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { FilterSelect, plainOptions } from "@/components/runs/filter-select";
import { OpenLiveRuns } from "@/components/runs/open-live-runs";
import { FilterError, FilterForm, ListSummary, Pager } from "@/components/runs/list-chrome";
import { EvaluationRunsGrid } from "@/components/evaluations/evaluation-runs-grid";
import { buttonClass } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { Input, Label } from "@/components/ui/field";
import { PageHeader } from "@/components/ui/page-header";
import { requirePagePermission } from "@/lib/auth/guard";
import { parsePageQuery, searchString } from "@/lib/experiments/read/filters";
import { getDb } from "@/lib/db/client";
import { listEvaluationRuns } from "@/lib/evaluations/evaluation-runs";
import { openLiveRuns } from "@/lib/evaluations/live/live-runs";
import { evaluationRunListQuerySchema, type EvaluationRunListQuery } from "@/lib/evaluations/read-schemas";
import { FINALITIES, INHERITED_STATES, UNRESOLVED_REASONS } from "@/lib/evaluations/schemas";
import type { SearchParams } from "@/lib/http/input";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Evaluation runs" };

const COMPARE_FORM = "compare-runs-form";

type Filters = Omit<EvaluationRunListQuery, "cursor" | "limit">;
const FILTER_KEYS = ["finality", "reason", "tool", "unit", "inherited"] as const satisfies readonly (keyof Filters)[];

export default async function EvaluationRunsPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const { id } = await params;
  const search = await searchParams;
  const path = `/evaluations/${id}/runs`;
  await requirePagePermission("results:read", `${path}${searchString(search)}`);
  const db = getDb();
  const evaluation = await db.evaluation.findUnique({ where: { id }, select: { name: true } });
  if (!evaluation) notFound();
  const parsed = parsePageQuery(evaluationRunListQuerySchema, search);
  const query = parsed.ok ? parsed.query : null;
  const [page, open] = await Promise.all([query ? listEvaluationRuns(db, id, query) : null, openLiveRuns(db, id)]);
  const href = (cursor?: string) => {
    const p = new URLSearchParams();
    for (const key of FILTER_KEYS) if (query?.[key]) p.set(key, String(query[key]));
    if (cursor) p.set("cursor", cursor);
    const s = p.toString();
    return s ? `${path}?${s}` : path;
  };

  return (
    <>
      <PageHeader
        crumbs={[
          { href: "/evaluations", label: "Evaluations" },
          { href: `/evaluations/${id}`, label: evaluation.name },
        ]}
        title={<>Runs of “{evaluation.name}”</>}
        description="In the order they were stored. A run is final when every relevant effect was terminal at scoring; otherwise unresolved (not failed), with its earliest open effect's reason and tool. Runs connected through shared state share a unit."
      />
      <div className="space-y-4">
        <OpenLiveRuns evaluationId={id} open={open} />
        <FilterForm action={path} label="Filter runs">
          <FilterSelect name="finality" label="Finality" value={query?.finality} options={plainOptions(FINALITIES)} />
          <FilterSelect
            name="reason"
            label="Why unresolved"
            value={query?.reason}
            options={UNRESOLVED_REASONS.map((r) => ({ value: r, label: r }))}
          />
          <FilterSelect name="inherited" label="Inherited state" value={query?.inherited} options={plainOptions(INHERITED_STATES)} />
          <div className="space-y-1">
            <Label htmlFor="filter-tool">Open effect&apos;s tool</Label>
            <Input id="filter-tool" name="tool" defaultValue={query?.tool ?? ""} maxLength={200} />
          </div>
          {query?.unit ? <input type="hidden" name="unit" value={query.unit} /> : null}
        </FilterForm>
        {!parsed.ok ? (
          <FilterError message={parsed.message} resetHref={path} resetLabel="Show every run" />
        ) : page && page.runs.length === 0 ? (
          <EmptyState
            icon={ListX}
            title={FILTER_KEYS.some((k) => query?.[k]) ? "No run matches these filters" : "No run is stored yet"}
            data-testid="evaluation-runs-empty"
          >
            <p>
              <Link href={path}>Show every run</Link>, or send runs with <code>npm run ingest -- --evaluation {id} FILE.jsonl</code>.
            </p>
          </EmptyState>
        ) : page ? (
          <>
            <ListSummary testId="evaluation-runs-count" exports={null}>
              {page.runs.length} run{page.runs.length === 1 ? "" : "s"} on this page{query?.unit ? `, unit ${query.unit}` : ""}
            </ListSummary>
            <form id={COMPARE_FORM} action={`/evaluations/${id}/compare-runs`} method="get" className="flex flex-wrap items-center gap-3">
              <button type="submit" className={buttonClass({ size: "sm" })} data-testid="compare-runs-submit">
                <Columns2 aria-hidden="true" />
                Compare
              </button>
              <p className="text-sm text-muted-foreground">
                Tick two runs: their transcripts side by side, turn by turn, each call&apos;s effect and audit beside the other&apos;s.
              </p>
            </form>
            <EvaluationRunsGrid
              runs={page.runs}
              runHref={(externalId) => `${path}/${encodeURIComponent(externalId)}`}
              unitHref={(unit) => `${path}?unit=${unit}`}
              compareForm={COMPARE_FORM}
            />
            <Pager
              label="Pages of runs"
              firstHref={query?.cursor ? href() : null}
              nextHref={page.nextCursor ? href(page.nextCursor) : null}
            />
          </>
        ) : null}
      </div>
    </>
  );
}

import { ListX } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { FilterSelect, plainOptions } from "@/components/runs/filter-select";
import { labelCell } from "@/components/runs/label-text";
import { OpenLiveRuns } from "@/components/runs/open-live-runs";
import { FilterError, FilterForm, ListSummary, Pager } from "@/components/runs/list-chrome";
import { DataGrid, type GridColumn } from "@/components/ui/data-grid";
import { EmptyState } from "@/components/ui/empty-state";
import { Input, Label } from "@/components/ui/field";
import { PageHeader } from "@/components/ui/page-header";
import { requirePagePermission } from "@/lib/auth/guard";
import { parsePageQuery, searchString } from "@/lib/experiments/read/filters";
import { getDb } from "@/lib/db/client";
import { REASON_LABELS } from "@/lib/evaluations/display";
import { listEvaluationRuns } from "@/lib/evaluations/evaluation-runs";
import { openLiveRuns } from "@/lib/evaluations/live/live-runs";
import { evaluationRunListQuerySchema, type EvaluationRunListQuery } from "@/lib/evaluations/read-schemas";
import { FINALITIES, INHERITED_STATES, UNRESOLVED_REASONS } from "@/lib/evaluations/schemas";
import type { SearchParams } from "@/lib/http/input";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Evaluation runs" };

const COLUMNS: GridColumn[] = [
  { header: "Run (external id)", rowHeader: true },
  { header: "Task" },
  { header: "Attempt", numeric: true, hidden: true },
  { header: "Endpoint label" },
  { header: "Terminal label" },
  { header: "Finality" },
  { header: "Why unresolved" },
  { header: "Open effect's tool" },
  { header: "Unit", numeric: true },
  { header: "Inherited state" },
];

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
            <DataGrid
              testId="evaluation-runs"
              caption="Runs of this evaluation"
              sortNote="Select a column heading to sort the runs on this page."
              columns={COLUMNS}
              rows={page.runs.map((r) => ({
                key: r.id,
                sort: [
                  r.externalId,
                  r.taskId,
                  r.attempt,
                  r.endpointLabel,
                  r.terminalLabel,
                  r.finality,
                  r.unresolvedReason,
                  r.unresolvedTool,
                  r.analysisUnit === null ? null : Number(r.analysisUnit),
                  r.inheritedState,
                ],
                cells: [
                  { href: `${path}/${encodeURIComponent(r.externalId)}`, code: r.externalId, testId: "evaluation-run-link" },
                  { code: r.taskId },
                  r.attempt ?? "",
                  labelCell(r.endpointLabel),
                  labelCell(r.terminalLabel),
                  r.finality === "final"
                    ? "final"
                    : r.finality === "unscored"
                      ? { badge: "warning", text: "unscored" }
                      : labelCell("unresolved"),
                  r.unresolvedReason ? { text: r.unresolvedReason, title: REASON_LABELS[r.unresolvedReason] } : (r.unscoredReason ?? ""),
                  r.unresolvedTool ? { code: r.unresolvedTool } : "",
                  r.analysisUnit ? { href: `${path}?unit=${r.analysisUnit}`, text: r.analysisUnit } : "",
                  r.inheritedState === "none" ? "none" : { badge: "danger", text: r.inheritedState },
                ],
              }))}
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

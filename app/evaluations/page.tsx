import { Gauge, Plus, Scale, Upload } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { FilterError, FilterForm, Pager } from "@/components/runs/list-chrome";
import { buttonClass } from "@/components/ui/button";
import { DataGrid, type GridColumn } from "@/components/ui/data-grid";
import { EmptyState } from "@/components/ui/empty-state";
import { Input, Label } from "@/components/ui/field";
import { PageHeader } from "@/components/ui/page-header";
import { PageLoading } from "@/components/ui/skeleton";
import { Time } from "@/components/ui/time";
import { requirePagePermission } from "@/lib/auth/guard";
import { can } from "@/lib/auth/permissions";
import { parsePageQuery, searchString } from "@/lib/experiments/read/filters";
import { getDb } from "@/lib/db/web-process-db";
import type { SearchParams } from "@/lib/http/input";
import { listEvaluations } from "@/lib/evaluations/read/list-evaluations";
import { evaluationListQuerySchema, type EvaluationListQuery } from "@/lib/evaluations/read/read-boundary";
import { EVALUATION_NAME_MAX } from "@/lib/evaluations/vocabulary";
import { ratio } from "@/lib/format/numbers";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Evaluations" };

const COLUMNS: GridColumn[] = [
  { header: "Compare", sortable: false },
  { header: "Evaluation", rowHeader: true },
  { header: "Harness" },
  { header: "Benchmark" },
  { header: "Runs", numeric: true },
  { header: "Reported successes / scored runs", numeric: true },
  { header: "Final-only successes / final runs", numeric: true },
  { header: "Unresolved / scored runs", numeric: true },
  { header: "Unscored / runs", numeric: true },
  { header: "Created" },
];

/** The checkboxes in the list belong to this form (by its id), which sends them as `ids`. */
const COMPARE_FORM = "compare-evaluations";

const rate = (n: number, of: number) => (of === 0 ? null : n / of);

export default async function EvaluationsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const search = await searchParams;
  const principal = await requirePagePermission("results:read", `/evaluations${searchString(search)}`);
  const writes = can(principal.role, "evaluation:write");
  const parsed = parsePageQuery(evaluationListQuerySchema, search);
  const query = parsed.ok ? parsed.query : null;
  return (
    <>
      <PageHeader
        title="Evaluations"
        description="Runs another harness produced, audited with the paper's two rules: which labels are final at scoring, and which runs are really separate units. Newest first."
        actions={
          writes ? (
            <>
              <Link href="/evaluations/import" className={buttonClass({ variant: "secondary" })}>
                <Upload aria-hidden="true" />
                Import logs
              </Link>
              <Link href="/evaluations/new" className={buttonClass({ variant: "primary" })}>
                <Plus aria-hidden="true" />
                New evaluation
              </Link>
            </>
          ) : null
        }
      />
      <div className="space-y-4">
        <FilterForm action="/evaluations" label="Find evaluations">
          <div className="space-y-1">
            <Label htmlFor="filter-name">Name contains</Label>
            <Input
              id="filter-name"
              name="name"
              type="search"
              defaultValue={query?.name ?? ""}
              maxLength={EVALUATION_NAME_MAX}
              placeholder="e.g. tau-bench"
            />
          </div>
        </FilterForm>
        {!query ? (
          <FilterError message={!parsed.ok ? parsed.message : ""} resetHref="/evaluations" resetLabel="Show every evaluation" />
        ) : (
          <Suspense fallback={<PageLoading label="Loading evaluations…" />}>
            <EvaluationList query={query} writes={writes} />
          </Suspense>
        )}
      </div>
    </>
  );
}

/** One page of evaluations with their counts (aggregated in PostgreSQL), or what to do when there is none. */
async function EvaluationList({ query, writes }: { query: EvaluationListQuery; writes: boolean }) {
  const page = await listEvaluations(getDb(), query);
  const href = (cursor?: string) => {
    const params = new URLSearchParams();
    if (query.name) params.set("name", query.name);
    if (cursor) params.set("cursor", cursor);
    const s = params.toString();
    return s ? `/evaluations?${s}` : "/evaluations";
  };
  if (page.evaluations.length === 0)
    return (
      <EmptyState
        icon={Gauge}
        title={query.name ? "No evaluation matches this name" : "No evaluation is stored yet"}
        data-testid="evaluations-empty"
      >
        {query.name ? (
          <p>
            <Link href="/evaluations">Clear the filter</Link> to see every evaluation.
          </p>
        ) : (
          <p>
            {writes ? <>Create one with “New evaluation”, then</> : <>An editor can create one here, then</>} send its runs with{" "}
            <code>npm run ingest</code> or <code>POST /api/v1/evaluations/ID/runs</code> (docs/evaluations.md).
          </p>
        )}
      </EmptyState>
    );
  return (
    <>
      <form id={COMPARE_FORM} action="/evaluations/compare" method="get" className="flex flex-wrap items-center gap-3">
        <button type="submit" className={buttonClass({ size: "sm" })} data-testid="compare-submit">
          <Scale aria-hidden="true" />
          Compare selected
        </button>
        <p className="text-sm text-muted-foreground">
          Tick two or more evaluations: their rates, justified ranges and rankings side by side, and whether each difference survives the
          bounds.
        </p>
      </form>
      <DataGrid
        testId="evaluations"
        caption={`Stored evaluations (${page.evaluations.length}${page.nextCursor ? " on this page" : ""})`}
        sortNote="Select a column heading to sort the evaluations on this page."
        columns={COLUMNS}
        rows={page.evaluations.map((e) => ({
          key: e.id,
          sort: [
            null,
            e.name,
            e.harness,
            e.benchmark,
            e.runs,
            rate(e.reported.successes, e.reported.n),
            rate(e.final.successes, e.final.n),
            rate(e.unresolved, e.reported.n),
            rate(e.unscored, e.runs),
            e.createdAt.getTime(),
          ],
          cells: [
            <input
              key="compare"
              type="checkbox"
              name="ids"
              value={e.id}
              form={COMPARE_FORM}
              aria-label={`Compare ${e.name}`}
              className="size-4"
              data-testid="compare-checkbox"
            />,
            <Link key="name" href={`/evaluations/${e.id}`} data-testid="evaluation-link">
              {e.name}
            </Link>,
            e.harness ?? <span className="text-muted-foreground">not given</span>,
            e.benchmark ?? <span className="text-muted-foreground">not given</span>,
            e.runs,
            ratio(e.reported.successes, e.reported.n),
            ratio(e.final.successes, e.final.n),
            ratio(e.unresolved, e.reported.n),
            ratio(e.unscored, e.runs),
            <Time key="created" iso={e.createdAt.toISOString()} />,
          ],
        }))}
      />
      <Pager
        label="Pages of evaluations"
        firstHref={query.cursor ? href() : null}
        nextHref={page.nextCursor ? href(page.nextCursor) : null}
      />
    </>
  );
}

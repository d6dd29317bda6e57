import { ListX } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { RunFiltersForm } from "@/components/runs/run-filters";
import { RunTable } from "@/components/runs/run-table";
import { ExportLinks, FilterError, ListSummary, Pager } from "@/components/runs/list-chrome";
import { StateBadge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { Label, Select } from "@/components/ui/field";
import { PageHeader } from "@/components/ui/page-header";
import { requirePagePermission } from "@/lib/auth/guard";
import { parsePageQuery, runFiltersOf, runListQuerySchema, searchString, viewQuery } from "@/lib/experiments/read/filters";
import { experimentTitle } from "@/lib/format/runs";
import type { SearchParams } from "@/lib/http/input";
import { listRuns, runsViewExperiment } from "@/lib/experiments/read/runs";
import { getDb } from "@/lib/db/web-process-db";
import { isExperimentId } from "@/lib/experiments/experiment-id";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Runs" };

const PAGE_SIZES = [50, 200, 500];

export default async function RunsPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  const { id } = await params;
  const search = await searchParams;
  const path = `/experiments/${id}/runs`;
  await requirePagePermission("results:read", `${path}${searchString(search)}`);
  if (!isExperimentId(id)) notFound();
  const db = getDb();
  const experiment = await runsViewExperiment(db, id);
  if (!experiment) notFound();

  const parsed = parsePageQuery(runListQuerySchema, search);
  const filters = parsed.ok ? runFiltersOf(parsed.query) : {};
  const page = parsed.ok ? await listRuns(db, id, { filters, cursor: parsed.query.cursor, limit: parsed.query.limit }) : null;
  // Links carry a page size only when the visitor chose one.
  const limit = parsed.ok && search.limit ? parsed.query.limit : undefined;
  const exportHref = (format: "csv" | "json") => `/api/v1/experiments/${id}/runs/export${viewQuery(filters, { format })}`;
  const title = experimentTitle(experiment);

  return (
    <>
      <PageHeader
        crumbs={[
          { href: "/", label: "Experiments" },
          { href: `/experiments/${id}`, label: title },
        ]}
        title={<>Runs of experiment {experiment.name ? `“${experiment.name}”` : <code>{id}</code>}</>}
        meta={<StateBadge state={experiment.state} />}
        description="The endpoint label is read right after the write was acknowledged, the terminal label once the operation was followed to its end; the recorded label is the one the run's policy keeps. Agreement compares the endpoint and terminal labels; exposure (B runs only) says whether A's write changed the value B scored."
      />
      <div className="space-y-4">
        <RunFiltersForm action={path} filters={filters} delays={experiment.delaysMs} conditions={experiment.conditions} />

        {!parsed.ok ? (
          <FilterError message={parsed.message} resetHref={path} resetLabel="Show every run" />
        ) : page ? (
          <>
            <ListSummary testId="runs-count" exports={<ExportLinks what="run" hrefFor={exportHref} />}>
              Showing {page.runs.length} of {page.total} matching runs{parsed.query.cursor ? " (a later page)" : ""}.
            </ListSummary>
            {page.runs.length === 0 ? (
              <EmptyState icon={ListX} title="No run matches these filters">
                <p>
                  <Link href={path}>Clear filters</Link>
                </p>
              </EmptyState>
            ) : (
              <RunTable
                runs={page.runs}
                caption={`Runs matching the filters (${page.runs.length} shown of ${page.total})`}
                sortNote={
                  page.total > page.runs.length
                    ? `Select a column heading to sort the ${page.runs.length} runs on this page (pages follow the grid's order; filters select from all ${page.total}).`
                    : "Select a column heading to sort the runs."
                }
              />
            )}
            <div className="flex flex-wrap items-end justify-between gap-3">
              <Pager
                label="Pages of runs"
                firstHref={parsed.query.cursor ? `${path}${viewQuery(filters, { limit })}` : null}
                nextHref={page.nextCursor ? `${path}${viewQuery(filters, { limit, cursor: page.nextCursor })}` : null}
              />
              <form method="get" action={path} className="flex items-end gap-2">
                {Object.entries(filters).map(([key, value]) =>
                  value === undefined ? null : <input key={key} type="hidden" name={key} value={String(value)} />,
                )}
                <div className="space-y-1">
                  <Label htmlFor="page-size">Runs per page</Label>
                  <Select id="page-size" name="limit" defaultValue={String(parsed.query.limit)} className="w-28">
                    {PAGE_SIZES.map((size) => (
                      <option key={size} value={size}>
                        {size}
                      </option>
                    ))}
                  </Select>
                </div>
                <Button type="submit">Show</Button>
              </form>
            </div>
          </>
        ) : null}
      </div>
    </>
  );
}

import { FlaskConical, Plus } from "lucide-react";
import Link from "next/link";
import { Suspense } from "react";
import { FilterSelect } from "@/components/runs/filter-select";
import { FilterError, FilterForm, Pager } from "@/components/runs/list-chrome";
import { StateBadge } from "@/components/ui/badge";
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
import { experimentTitle } from "@/lib/format/runs";
import { getDb } from "@/lib/db/web-process-db";
import { EXPERIMENT_STATES, experimentListQuerySchema, type ExperimentListQuery } from "@/lib/experiments/experiment-schemas";
import { listExperiments } from "@/lib/experiments/list-experiments";
import type { SearchParams } from "@/lib/http/input";
import { describeGrid } from "@/lib/format/replay-labels";
import { ratio } from "@/lib/format/numbers";

export const dynamic = "force-dynamic";

const COLUMNS: GridColumn[] = [
  { header: "Experiment", rowHeader: true },
  { header: "State" },
  { header: "Created" },
  { header: "Grid" },
  { header: "Runs stored / expected", numeric: true },
  { header: "Endpoint ≠ terminal (async policies, delay > 0)", numeric: true },
  { header: "Exposures / separation pairs", numeric: true },
];

const rate = (n: number, of: number) => (of === 0 ? null : n / of);

export default async function ExperimentsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const search = await searchParams;
  const principal = await requirePagePermission("results:read", `/${searchString(search)}`);
  const runs = can(principal.role, "experiment:run");
  const parsed = parsePageQuery(experimentListQuerySchema, search);
  const query = parsed.ok ? parsed.query : null;

  return (
    <>
      <PageHeader
        title="Experiments"
        description="Newest first. Disagreements count finality trials of every policy whose endpoint label differs from the terminal label; exposures count separation pairs where A's write changed the value scored in B."
        actions={
          runs ? (
            <Link href="/experiments/new" className={buttonClass({ variant: "primary" })}>
              <Plus aria-hidden="true" />
              Start a new experiment
            </Link>
          ) : null
        }
      />
      <div className="space-y-4">
        <FilterForm action="/" label="Find experiments">
          <div className="space-y-1">
            <Label htmlFor="filter-name">Name contains</Label>
            <Input
              id="filter-name"
              name="name"
              type="search"
              defaultValue={query?.name ?? ""}
              maxLength={200}
              placeholder="e.g. paper grid"
            />
          </div>
          <FilterSelect name="state" label="State" value={query?.state} options={EXPERIMENT_STATES.map((s) => ({ value: s, label: s }))} />
        </FilterForm>

        {!query ? (
          <FilterError message={!parsed.ok ? parsed.message : ""} resetHref="/" resetLabel="Show every experiment" />
        ) : (
          <Suspense fallback={<PageLoading label="Loading experiments…" />}>
            <ExperimentList query={query} runs={runs} />
          </Suspense>
        )}
      </div>
    </>
  );
}

/** One page of experiments (queried behind the loading state), or what to do when there is none. */
async function ExperimentList({ query, runs }: { query: ExperimentListQuery; runs: boolean }) {
  const page = await listExperiments(getDb(), query);
  const filtered = Boolean(query.name || query.state);
  const params = (extra: Record<string, string>) => {
    const p = new URLSearchParams();
    if (query.name) p.set("name", query.name);
    if (query.state) p.set("state", query.state);
    for (const [k, v] of Object.entries(extra)) p.set(k, v);
    const s = p.toString();
    return s ? `/?${s}` : "/";
  };
  return page.experiments.length === 0 ? (
    <EmptyState
      icon={FlaskConical}
      title={filtered ? "No experiment matches these filters" : "No experiment is stored yet"}
      data-testid="experiments-empty"
    >
      {filtered ? (
        <p>
          <Link href="/">Clear the filters</Link> to see every experiment.
        </p>
      ) : (
        <p>
          {runs ? <>Start one with “Start a new experiment”, or run</> : <>An editor can start one here, or run</>} the paper&apos;s replay
          with <code>npm run replay</code> against this database; it appears here once stored.
        </p>
      )}
    </EmptyState>
  ) : (
    <>
      <DataGrid
        testId="experiments"
        caption={`Stored experiments (${page.experiments.length}${page.nextCursor ? " on this page" : ""})`}
        sortNote="Select a column heading to sort the experiments on this page."
        columns={COLUMNS}
        rows={page.experiments.map((e) => ({
          key: e.id,
          sort: [
            experimentTitle(e),
            e.state,
            e.createdAt.getTime(),
            e.grid ? e.grid.schedules * e.grid.repetitions * e.grid.delaysMs.length : null,
            e.storedRuns,
            rate(e.asyncDisagreements, e.asyncTrials),
            rate(e.exposures, e.pairs),
          ],
          cells: [
            <div key="name" className="min-w-48 space-y-0.5">
              <Link href={`/experiments/${e.id}`} data-testid="experiment-link">
                {experimentTitle(e)}
              </Link>
              {e.notes ? <p className="line-clamp-2 max-w-md text-xs font-normal text-muted-foreground">{e.notes}</p> : null}
            </div>,
            <StateBadge key="state" state={e.state} />,
            <Time key="created" iso={e.createdAt.toISOString()} />,
            e.kind === "canary" ? (
              "canary reset check"
            ) : e.grid ? (
              describeGrid(e.grid)
            ) : (
              <span className="text-muted-foreground">config unreadable</span>
            ),
            e.totalRuns === null ? e.storedRuns : ratio(e.storedRuns, e.totalRuns),
            ratio(e.asyncDisagreements, e.asyncTrials),
            ratio(e.exposures, e.pairs),
          ],
        }))}
      />
      <Pager
        label="Pages of experiments"
        firstHref={query.cursor ? params({}) : null}
        nextHref={page.nextCursor ? params({ cursor: page.nextCursor }) : null}
      />
    </>
  );
}

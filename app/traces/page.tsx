import { Library } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { FilterSelect, plainOptions } from "@/components/runs/filter-select";
import { FilterError, FilterForm, Pager } from "@/components/runs/list-chrome";
import { Badge } from "@/components/ui/badge";
import { DataGrid, type GridColumn } from "@/components/ui/data-grid";
import { EmptyState } from "@/components/ui/empty-state";
import { Input, Label } from "@/components/ui/field";
import { PageHeader } from "@/components/ui/page-header";
import { PageLoading } from "@/components/ui/skeleton";
import { DataTable, RowHead, Td } from "@/components/ui/table";
import { requirePagePermission } from "@/lib/auth/guard";
import { parsePageQuery, searchString } from "@/lib/experiments/read/filters";
import { getDb } from "@/lib/db/web-process-db";
import type { SearchParams } from "@/lib/http/input";
import { AGENTDOJO_SUITES } from "@/lib/traces/agentdojo-tools";
import { ratio } from "@/lib/format/numbers";
import { listTraces, suiteCounts } from "@/lib/traces/library";
import { SOURCE_LABELS, TRACE_KINDS, TRACE_SOURCES, traceListQuerySchema, type TraceListQuery } from "@/lib/traces/trace-schemas";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Trace library" };

const COLUMNS: GridColumn[] = [
  { header: "Task", rowHeader: true },
  { header: "Suite" },
  { header: "Source" },
  { header: "Kind" },
  { header: "Calls", numeric: true },
  { header: "State-changing calls" },
  { header: "Imported runs", numeric: true },
];

export default async function TracesPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const search = await searchParams;
  await requirePagePermission("results:read", `/traces${searchString(search)}`);
  const parsed = parsePageQuery(traceListQuerySchema, search);
  const query = parsed.ok ? parsed.query : null;
  return (
    <>
      <PageHeader
        title="Trace library"
        description="AgentDojo v1.2.1's ground-truth tool-call traces (each task's own solution, run without a model), with the imported runs of each task, and the tool calls of every imported run (one imported trace per distinct call sequence, with the runs that made it). A trace with a state-changing call can be replayed under every finality policy and separation condition."
      />
      <div className="space-y-4">
        <Suspense fallback={<PageLoading label="Loading the suites…" />}>
          <Suites />
        </Suspense>
        <FilterForm action="/traces" label="Find traces">
          <FilterSelect
            name="source"
            label="Source"
            value={query?.source}
            options={TRACE_SOURCES.map((s) => ({ value: s, label: SOURCE_LABELS[s] }))}
          />
          <FilterSelect name="suite" label="Suite" value={query?.suite} options={plainOptions(AGENTDOJO_SUITES)} />
          <FilterSelect name="kind" label="Kind" value={query?.kind} options={TRACE_KINDS.map((k) => ({ value: k, label: `${k} task` }))} />
          <FilterSelect
            name="writes"
            label="State-changing calls"
            value={query?.writes}
            options={[
              { value: "with", label: "at least one (replayable)" },
              { value: "without", label: "none (read-only)" },
            ]}
          />
          <div className="space-y-1">
            <Label htmlFor="filter-task">Task</Label>
            <Input
              id="filter-task"
              name="task"
              type="search"
              defaultValue={query?.task ?? ""}
              maxLength={200}
              placeholder="e.g. banking/user_task_3"
            />
          </div>
        </FilterForm>
        {!query ? (
          <FilterError message={!parsed.ok ? parsed.message : ""} resetHref="/traces" resetLabel="Show every trace" />
        ) : (
          <Suspense fallback={<PageLoading label="Loading traces…" />}>
            <TraceList query={query} />
          </Suspense>
        )}
      </div>
    </>
  );
}

/** The suites with their task counts: which share of each suite's user tasks can be replayed. */
async function Suites() {
  const suites = await suiteCounts(getDb());
  if (suites.length === 0) return null;
  return (
    <DataTable
      caption="Suites in the library"
      columns={["Suite", "User tasks", "Injection tasks", "User tasks with a state-changing call / user tasks", "Replay"]}
      numericColumns={[1, 2, 3]}
      testId="trace-suites"
    >
      {suites.map((s) => (
        <tr key={s.suite}>
          <RowHead>
            <Link href={`/traces?suite=${s.suite}`}>{s.suite}</Link>
          </RowHead>
          <Td numeric>{s.userTasks}</Td>
          <Td numeric>{s.injectionTasks}</Td>
          <Td numeric>{ratio(s.withWrites, s.userTasks)}</Td>
          <Td>
            <code>npm run replay -- --traces ground-truth:{s.suite}</code>
          </Td>
        </tr>
      ))}
    </DataTable>
  );
}

async function TraceList({ query }: { query: TraceListQuery }) {
  const page = await listTraces(getDb(), query);
  const href = (cursor?: string) => {
    const params = new URLSearchParams();
    for (const key of ["source", "suite", "kind", "writes", "task"] as const) if (query[key]) params.set(key, query[key]!);
    if (cursor) params.set("cursor", cursor);
    const s = params.toString();
    return s ? `/traces?${s}` : "/traces";
  };
  if (page.traces.length === 0)
    return (
      <EmptyState icon={Library} title="No trace matches these filters" data-testid="traces-empty">
        <p>
          <Link href="/traces">Clear the filters</Link> to see every trace. The library is loaded from AgentDojo&apos;s ground truth when
          Boundary Lab first starts.
        </p>
      </EmptyState>
    );
  return (
    <>
      <DataGrid
        testId="traces"
        caption={`Traces (${page.traces.length}${page.nextCursor ? " on this page" : ""})`}
        sortNote="Select a column heading to sort the traces on this page."
        columns={COLUMNS}
        rows={page.traces.map((t) => ({
          key: t.id,
          sort: [`${t.suite}/${t.task}`, t.suite, t.source, t.kind, t.callCount, t.stateChangingCount, t.linkedRuns],
          cells: [
            <Link key="task" href={`/traces/${t.id}`} data-testid="trace-link">
              {t.suite}/{t.task}
            </Link>,
            t.suite,
            SOURCE_LABELS[t.source as (typeof TRACE_SOURCES)[number]] ?? t.source,
            t.kind,
            t.callCount,
            t.writes.length ? (
              <span key="writes" className="flex flex-wrap gap-1">
                {t.writes.map((w, i) => (
                  <Badge key={i} tone="warning">
                    {w}
                  </Badge>
                ))}
              </span>
            ) : (
              <span className="text-muted-foreground">none</span>
            ),
            t.linkedRuns,
          ],
        }))}
      />
      <Pager label="Pages of traces" firstHref={query.cursor ? href() : null} nextHref={page.nextCursor ? href(page.nextCursor) : null} />
    </>
  );
}

import { Columns2, ListX, Search } from "lucide-react";
import type { ReactElement, ReactNode } from "react";
import { FilterSelect, plainOptions } from "@/components/runs/filter-select";
import { labelCell } from "@/components/runs/label-text";
import { FilterError, FilterForm, ListSummary, Pager } from "@/components/runs/list-chrome";
import { Button, buttonClass } from "@/components/ui/button";
import { DataGrid, type GridColumn } from "@/components/ui/data-grid";
import { EmptyState } from "@/components/ui/empty-state";
import type { GridCell } from "@/components/ui/grid-cell";
import { Input, Label } from "@/components/ui/field";
import { REASON_LABELS, timesRecorded } from "@/lib/evaluations/read/display";
import {
  RUN_LABEL_FILTERS,
  RUN_SORTS,
  SEARCH_MIN_CHARACTERS,
  type EvaluationRunListItem,
  type EvaluationRunListQuery,
  type RunSort,
} from "@/lib/evaluations/read/read-boundary";
import { FINALITIES, INHERITED_STATES, UNRESOLVED_REASONS } from "@/lib/evaluations/vocabulary";
import { formatDuration } from "@/lib/format/time";
import { DEFAULT_PAGE_SIZE } from "@/lib/http/pagination";
import type { FrozenRunState } from "@/lib/share/frozen-runs";

/** The query's keys a link to another page of the same view keeps (all but the cursor and page size). */
export const RUN_VIEW_KEYS = [
  "q",
  "sort",
  "order",
  "finality",
  "reason",
  "tool",
  "label",
  "unit",
  "inherited",
  "startedFrom",
  "startedTo",
  "durationMin",
  "durationMax",
  "scoreMin",
  "scoreMax",
  "toolCallsMin",
  "toolCallsMax",
  "openEffectsMin",
  "openEffectsMax",
] as const satisfies readonly (keyof EvaluationRunListQuery)[];

const SORT_LABELS: Record<RunSort, string> = {
  stored: "stored order",
  start: "start",
  duration: "duration",
  score: "score",
  label: "endpoint label",
  finality: "finality",
  unit: "unit",
  toolCalls: "tool calls",
  openEffects: "open effects",
};

/** A run as listed; behind a frozen share link, with how it stands as of the freeze. */
type ListedRun = EvaluationRunListItem & { frozenState?: FrozenRunState };

/** A column of the list: its heading and its cell for a run. The list is sorted by the server (the form's "Sort by"), not per page. */
interface RunColumn extends GridColumn {
  cell: (run: ListedRun) => GridCell | ReactElement;
}

/** Re-sent after a frozen share link was made: its audit then is not kept, so the list says so instead of an audit. */
const changedAfterFreeze = (run: ListedRun) => run.frozenState === "changed_after_freeze";

const COMPARE_FORM = "compare-runs-form";

/** Tokens in and out of a run's model calls, when any of its calls reported them. */
function tokensCell(run: EvaluationRunListItem): GridCell {
  if (run.inputTokens === null && run.outputTokens === null) return { muted: "—" };
  const count = (n: number | null) => (n === null ? "?" : n.toLocaleString("en-US"));
  return { text: `${count(run.inputTokens)} / ${count(run.outputTokens)}`, title: "input / output tokens of its model calls" };
}

/** The view's query string (its page size too, when not the default), with `extra` set over it (a cursor, a unit); keys left empty are left out. */
/** What the runs list says of itself, on the owner's page and a share link's alike. */
export const RUNS_LIST_DESCRIPTION =
  "In the order they were stored, unless sorted otherwise. A run is final when every relevant effect was terminal at scoring; otherwise unresolved (not failed), with its earliest open effect's reason and tool. Runs connected through shared state share a unit, labelled U1, U2, … by each unit's first run.";

/** A run's page under the list's own path (`…/runs/ID`), carrying the search text for the run page to mark. */
export const runPageUnder = (path: string) => (externalId: string, q: string | undefined) =>
  `${path}/${encodeURIComponent(externalId)}${q ? `?${new URLSearchParams({ q })}` : ""}`;

export function runViewQuery(query: Partial<EvaluationRunListQuery> | null, extra: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const key of RUN_VIEW_KEYS) {
    const value = query?.[key];
    if (value === undefined || (key === "sort" && value === "stored") || (key === "order" && value === "asc")) continue;
    params.set(key, String(value));
  }
  if (query?.limit !== undefined && query.limit !== DEFAULT_PAGE_SIZE) params.set("limit", String(query.limit));
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) params.set(key, value);
  const s = params.toString();
  return s ? `?${s}` : "";
}

/**
 * An evaluation's runs as a list: a text search, filters and a sort for each column (a plain GET form: the URL is the
 * view), the runs of one keyset page and links to the next. `path` is the list's own address (the form's action, the
 * pages'); `runHref` a run's page, given the search text so that the run page can mark it.
 */
export function EvaluationRunsList({
  path,
  runHref,
  query,
  error,
  page,
  empty,
  compareAction,
}: {
  path: string;
  runHref: (externalId: string, q: string | undefined) => string;
  /** The parsed query; null when it was refused (then `error` says why). */
  query: EvaluationRunListQuery | null;
  error: string | null;
  /** One keyset page: it may hold no run and still have a next (a frozen share link keeps only the runs that match as audited then). */
  page: { runs: ListedRun[]; nextCursor: string | null } | null;
  /** Shown when no run matches an unfiltered list. */
  empty?: ReactNode;
  /** The compare-runs page: given, each run has a box to tick and "Compare" opens two ticked runs side by side. */
  compareAction?: string;
}) {
  const compareColumn: RunColumn[] = compareAction
    ? [
        {
          header: "Compare",
          cell: (r) => (
            <input
              type="checkbox"
              name="runs"
              value={r.externalId}
              form={COMPARE_FORM}
              aria-label={`Compare run ${r.externalId}`}
              className="size-4"
              data-testid="compare-run-checkbox"
            />
          ),
        },
      ]
    : [];
  const columns: RunColumn[] = [
    ...compareColumn,
    {
      header: "Run (external id)",
      rowHeader: true,
      cell: (r) => ({ href: runHref(r.externalId, query?.q), code: r.externalId, testId: "evaluation-run-link" }),
    },
    { header: "Task", cell: (r) => ({ code: r.taskId }) },
    { header: "Start", cell: (r) => (timesRecorded(r.startedAt) ? { time: r.startedAt.toISOString() } : { muted: "not recorded" }) },
    { header: "Duration", numeric: true, cell: (r) => (r.durationMs === null ? { muted: "—" } : formatDuration(r.durationMs)) },
    { header: "Score", numeric: true, cell: (r) => r.score ?? { muted: "—" } },
    { header: "Endpoint label", cell: (r) => labelCell(r.endpointLabel) },
    { header: "Terminal label", cell: (r) => labelCell(r.terminalLabel) },
    {
      header: "Finality",
      cell: (r) =>
        changedAfterFreeze(r)
          ? { badge: "warning", text: "re-sent after the link was frozen" }
          : r.finality === "final"
            ? "final"
            : r.finality === "unscored"
              ? { badge: "warning", text: "unscored" }
              : labelCell("unresolved"),
    },
    {
      header: "Why unresolved",
      cell: (r) =>
        changedAfterFreeze(r)
          ? ""
          : r.unresolvedReason
            ? { text: r.unresolvedReason, title: REASON_LABELS[r.unresolvedReason] }
            : (r.unscoredReason ?? ""),
    },
    {
      header: "Open effect's tool",
      hidden: true,
      cell: (r) => (!changedAfterFreeze(r) && r.unresolvedTool ? { code: r.unresolvedTool } : ""),
    },
    {
      header: "Unit",
      cell: (r) =>
        r.analysisUnit && r.unitLabel
          ? { href: `${path}${runViewQuery(query, { unit: r.analysisUnit, cursor: undefined })}`, text: r.unitLabel }
          : "",
    },
    { header: "Tool calls", numeric: true, cell: (r) => r.toolCallCount },
    { header: "Open effects", numeric: true, cell: (r) => (r.openEffects > 0 ? { badge: "warning", text: String(r.openEffects) } : 0) },
    { header: "Tokens in / out", numeric: true, cell: tokensCell },
    {
      header: "Inherited state",
      hidden: true,
      cell: (r) => (r.inheritedState === "none" ? "none" : { badge: "danger", text: r.inheritedState }),
    },
  ];
  const filtered = RUN_VIEW_KEYS.some((key) => key !== "sort" && key !== "order" && query?.[key] !== undefined);
  const unitLabel = query?.unit ? page?.runs.find((r) => r.analysisUnit === query.unit)?.unitLabel : undefined;

  return (
    <div className="space-y-4">
      <form method="get" action={path} role="search" aria-label="Search the runs" className="flex flex-wrap items-end gap-2">
        <div className="min-w-64 flex-1 space-y-1">
          <Label htmlFor="runs-search">Search transcripts, tool calls, tasks and run ids</Label>
          <Input
            id="runs-search"
            name="q"
            type="search"
            defaultValue={query?.q ?? ""}
            minLength={SEARCH_MIN_CHARACTERS}
            maxLength={200}
            placeholder={`at least ${SEARCH_MIN_CHARACTERS} characters`}
          />
        </div>
        {/* The search keeps the view's other choices. */}
        {RUN_VIEW_KEYS.filter((key) => key !== "q" && query?.[key] !== undefined).map((key) => (
          <input key={key} type="hidden" name={key} value={String(query![key])} />
        ))}
        <Button type="submit" variant="primary">
          <Search aria-hidden="true" />
          Search
        </Button>
      </form>
      <FilterForm action={path} label="Filter and sort runs">
        {query?.q ? <input type="hidden" name="q" value={query.q} /> : null}
        {query?.unit ? <input type="hidden" name="unit" value={query.unit} /> : null}
        <FilterSelect
          name="sort"
          label="Sort by"
          value={query?.sort === "stored" ? undefined : query?.sort}
          options={RUN_SORTS.filter((s) => s !== "stored").map((s) => ({ value: s, label: SORT_LABELS[s] }))}
        />
        <FilterSelect
          name="order"
          label="Order"
          value={query?.order === "desc" ? "desc" : undefined}
          options={[{ value: "desc", label: "descending" }]}
        />
        <FilterSelect name="finality" label="Finality" value={query?.finality} options={plainOptions(FINALITIES)} />
        <FilterSelect name="label" label="Endpoint label" value={query?.label} options={plainOptions(RUN_LABEL_FILTERS)} />
        <FilterSelect
          name="reason"
          label="Why unresolved"
          value={query?.reason}
          options={UNRESOLVED_REASONS.map((r) => ({ value: r, label: r }))}
        />
        <FilterSelect name="inherited" label="Inherited state" value={query?.inherited} options={plainOptions(INHERITED_STATES)} />
        <TextFilter name="tool" label="Open effect's tool" value={query?.tool} />
        <TextFilter name="startedFrom" label="Started from (UTC date or time)" value={query?.startedFrom} />
        <TextFilter name="startedTo" label="Started until (UTC date or time)" value={query?.startedTo} />
        <TextFilter name="durationMin" label="Duration at least (ms)" value={query?.durationMin} numeric />
        <TextFilter name="durationMax" label="Duration at most (ms)" value={query?.durationMax} numeric />
        <TextFilter name="scoreMin" label="Score at least" value={query?.scoreMin} numeric />
        <TextFilter name="scoreMax" label="Score at most" value={query?.scoreMax} numeric />
        <TextFilter name="toolCallsMin" label="Tool calls at least" value={query?.toolCallsMin} numeric />
        <TextFilter name="toolCallsMax" label="Tool calls at most" value={query?.toolCallsMax} numeric />
        <TextFilter name="openEffectsMin" label="Open effects at least" value={query?.openEffectsMin} numeric />
        <TextFilter name="openEffectsMax" label="Open effects at most" value={query?.openEffectsMax} numeric />
      </FilterForm>
      {error !== null ? (
        <FilterError message={error} resetHref={path} resetLabel="Show every run" />
      ) : page && page.runs.length === 0 && !page.nextCursor ? (
        <EmptyState
          icon={ListX}
          title={
            filtered
              ? query?.q
                ? `No run matches “${query.q}” under these filters`
                : "No run matches these filters"
              : "No run is stored yet"
          }
          data-testid="evaluation-runs-empty"
        >
          {filtered ? (
            <p>
              <a href={path}>Show every run</a>.
            </p>
          ) : (
            empty
          )}
        </EmptyState>
      ) : page ? (
        <>
          <ListSummary testId="evaluation-runs-count" exports={null}>
            {page.runs.length} run{page.runs.length === 1 ? "" : "s"} on this page
            {query?.q ? ` matching “${query.q}”` : ""}
            {query?.unit ? `, unit ${unitLabel ?? query.unit}` : ""}, by {SORT_LABELS[query?.sort ?? "stored"]}
            {query?.order === "desc" ? " (descending)" : ""}
          </ListSummary>
          {compareAction ? (
            <form id={COMPARE_FORM} action={compareAction} method="get" className="flex flex-wrap items-center gap-3">
              <button type="submit" className={buttonClass({ size: "sm" })} data-testid="compare-runs-submit">
                <Columns2 aria-hidden="true" />
                Compare
              </button>
              <p className="text-sm text-muted-foreground">
                Tick two runs: their transcripts side by side, turn by turn, each call&apos;s effect and audit beside the other&apos;s.
              </p>
            </form>
          ) : null}
          <DataGrid
            testId="evaluation-runs"
            caption="Runs of this evaluation"
            columns={columns.map((column) => ({
              header: column.header,
              numeric: column.numeric,
              hidden: column.hidden,
              rowHeader: column.rowHeader,
              sortable: false,
            }))}
            rows={page.runs.map((run) => ({ key: run.id, sort: [], cells: columns.map((column) => column.cell(run)) }))}
          />
          <Pager
            label="Pages of runs"
            firstHref={query?.cursor ? `${path}${runViewQuery(query)}` : null}
            nextHref={page.nextCursor ? `${path}${runViewQuery(query, { cursor: page.nextCursor })}` : null}
          />
        </>
      ) : null}
    </div>
  );
}

function TextFilter({
  name,
  label,
  value,
  numeric,
}: {
  name: string;
  label: string;
  value: string | number | undefined;
  numeric?: boolean;
}) {
  return (
    <div className="space-y-1">
      <Label htmlFor={`filter-${name}`}>{label}</Label>
      <Input id={`filter-${name}`} name={name} defaultValue={value ?? ""} maxLength={200} inputMode={numeric ? "decimal" : undefined} />
    </div>
  );
}

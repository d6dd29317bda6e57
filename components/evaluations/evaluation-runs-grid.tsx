import { labelCell } from "@/components/runs/label-text";
import { DataGrid, type GridColumn } from "@/components/ui/data-grid";
import { REASON_LABELS } from "@/lib/evaluations/read/display";
import type { EvaluationRunListItem } from "@/lib/evaluations/read/read-boundary";
import type { FrozenRunState } from "@/lib/share/frozen-runs";

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

/**
 * An evaluation's runs, one page of them: on the runs page and behind the evaluation's share link,
 * which give their own links. `compareForm`: the id of the form whose "Compare" opens two ticked runs
 * side by side. A run re-sent after a frozen link was made (`frozenState`) says so instead of its audit.
 */
export function EvaluationRunsGrid({
  runs,
  runHref,
  unitHref,
  compareForm,
}: {
  runs: readonly (EvaluationRunListItem & { frozenState?: FrozenRunState })[];
  runHref: (externalId: string) => string;
  unitHref: (unit: string) => string;
  compareForm?: string;
}) {
  return (
    <DataGrid
      testId="evaluation-runs"
      caption="Runs of this evaluation"
      sortNote="Select a column heading to sort the runs on this page."
      columns={compareForm ? [{ header: "Compare", sortable: false }, ...COLUMNS] : COLUMNS}
      rows={runs.map((r) => {
        const changed = r.frozenState === "changed_after_freeze";
        const cells = [
          { href: runHref(r.externalId), code: r.externalId, testId: "evaluation-run-link" },
          { code: r.taskId },
          r.attempt ?? "",
          labelCell(r.endpointLabel),
          labelCell(r.terminalLabel),
          changed
            ? { badge: "warning" as const, text: "re-sent after the link was frozen" }
            : r.finality === "final"
              ? "final"
              : r.finality === "unscored"
                ? { badge: "warning" as const, text: "unscored" }
                : labelCell("unresolved"),
          changed
            ? ""
            : r.unresolvedReason
              ? { text: r.unresolvedReason, title: REASON_LABELS[r.unresolvedReason] }
              : (r.unscoredReason ?? ""),
          !changed && r.unresolvedTool ? { code: r.unresolvedTool } : "",
          r.analysisUnit ? { href: unitHref(r.analysisUnit), text: r.unitLabel ?? r.analysisUnit } : "",
          r.inheritedState === "none" ? "none" : { badge: "danger" as const, text: r.inheritedState },
        ];
        const sort = [
          r.externalId,
          r.taskId,
          r.attempt,
          r.endpointLabel,
          r.terminalLabel,
          changed ? null : r.finality,
          changed ? null : r.unresolvedReason,
          changed ? null : r.unresolvedTool,
          r.analysisUnit === null ? null : Number(r.analysisUnit),
          r.inheritedState,
        ];
        return {
          key: r.id,
          sort: compareForm ? [null, ...sort] : sort,
          cells: compareForm
            ? [
                <input
                  key="compare"
                  type="checkbox"
                  name="runs"
                  value={r.externalId}
                  form={compareForm}
                  aria-label={`Compare run ${r.externalId}`}
                  className="size-4"
                  data-testid="compare-run-checkbox"
                />,
                ...cells,
              ]
            : cells,
        };
      })}
    />
  );
}

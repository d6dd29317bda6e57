import { DataGrid, type GridColumn } from "@/components/ui/data-grid";
import { conditionLabel, describeRun, shortId } from "@/lib/format/runs";
import type { RunListRow } from "@/lib/experiments/read/runs";
import { CLASSIFICATION_LABELS } from "@/lib/format/replay-labels";
import { agreementCell, exposureCell, labelCell } from "./label-text";

const COLUMNS: GridColumn[] = [
  { header: "Run", rowHeader: true },
  { header: "Condition" },
  { header: "Delay (ms)", numeric: true },
  { header: "Schedule, repetition", numeric: true },
  { header: "Role" },
  { header: "Endpoint label" },
  { header: "Terminal label" },
  { header: "Recorded label" },
  { header: "Agreement" },
  { header: "Exposure" },
  { header: "Classification" },
  { header: "Measured delay (ms)", numeric: true, hidden: true },
];

/** One page of runs, each linking to its own page; sortable by any column within the page. */
export function RunTable({ runs, caption, sortNote }: { runs: readonly RunListRow[]; caption: string; sortNote: string }) {
  return (
    <DataGrid
      caption={caption}
      testId="runs-table"
      sortNote={sortNote}
      columns={COLUMNS}
      rows={runs.map((run) => ({
        key: run.id,
        sort: [
          run.id,
          conditionLabel(run.condition),
          run.delayMs,
          run.scheduleId * 100_000 + run.repetition,
          run.role,
          run.endpointLabel,
          run.terminalLabel,
          run.recordedLabel,
          run.agreement,
          run.exposure === null ? null : run.exposure ? "exposed" : "not exposed",
          CLASSIFICATION_LABELS[run.classification],
          run.measuredDelayMs,
        ],
        cells: [
          // The accessible name starts with the visible text, then says which run it is.
          {
            href: `/runs/${run.id}`,
            text: "Run ",
            code: shortId(run.id),
            label: `Run ${shortId(run.id)}: ${describeRun(run)}`,
            nowrap: true,
          },
          conditionLabel(run.condition),
          run.delayMs,
          `${run.scheduleId}, ${run.repetition}`,
          run.role,
          labelCell(run.endpointLabel),
          labelCell(run.terminalLabel),
          labelCell(run.recordedLabel),
          agreementCell(run.agreement),
          exposureCell(run.exposure),
          CLASSIFICATION_LABELS[run.classification],
          run.measuredDelayMs === null ? "none" : run.measuredDelayMs.toFixed(3),
        ],
      }))}
    />
  );
}

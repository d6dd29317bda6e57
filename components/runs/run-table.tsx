import Link from "next/link";
import { DataGrid, type GridColumn } from "@/components/ui/data-grid";
import { conditionLabel, describeRun, shortId } from "@/lib/format/runs";
import type { RunListRow } from "@/lib/experiments/read/runs";
import { CLASSIFICATION_LABELS } from "@/lib/format/replay-labels";
import { AgreementText, ExposureText, LabelText } from "./label-text";

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
          <Link key="run" href={`/runs/${run.id}`} aria-label={`Run ${shortId(run.id)}: ${describeRun(run)}`} className="whitespace-nowrap">
            Run <code>{shortId(run.id)}</code>
          </Link>,
          conditionLabel(run.condition),
          run.delayMs,
          `${run.scheduleId}, ${run.repetition}`,
          run.role,
          <LabelText key="endpoint" value={run.endpointLabel} />,
          <LabelText key="terminal" value={run.terminalLabel} />,
          <LabelText key="recorded" value={run.recordedLabel} />,
          <AgreementText key="agreement" value={run.agreement} />,
          <ExposureText key="exposure" value={run.exposure} />,
          CLASSIFICATION_LABELS[run.classification],
          run.measuredDelayMs === null ? "none" : run.measuredDelayMs.toFixed(3),
        ],
      }))}
    />
  );
}

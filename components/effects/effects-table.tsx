import { DataGrid, type GridColumn } from "@/components/ui/data-grid";
import type { EffectListRow } from "@/lib/experiments/read/effects";
import { describeRun, shortId } from "@/lib/format/runs";
import { formatDuration } from "@/lib/format/time";

const COLUMNS: GridColumn[] = [
  { header: "Operation handle", rowHeader: true },
  { header: "Terminal status" },
  { header: "Status at the endpoint" },
  { header: "Action" },
  { header: "Run" },
  { header: "Experiment" },
  { header: "Initiated" },
  { header: "Resolved after", numeric: true },
  { header: "Cross-run route", className: "min-w-40" },
];

const STATUS_TONE = { completed: "success", failed: "danger", cancelled: "warning", unresolved: "neutral" } as const;

/** One page of open-effects records, unresolved first, each linking to its run. */
export function EffectsTable({ effects, caption }: { effects: readonly EffectListRow[]; caption: string }) {
  return (
    <DataGrid
      caption={caption}
      testId="effects-table"
      sortNote="Select a column heading to sort the records on this page."
      columns={COLUMNS}
      rows={effects.map((effect) => {
        const run = {
          condition: effect.runCondition,
          delayMs: effect.runDelayMs,
          scheduleId: effect.runScheduleId,
          repetition: effect.runRepetition,
          role: effect.runRole,
        };
        const resolvedAfter = effect.resolvedAtMs === null ? null : effect.resolvedAtMs - effect.initiatedAtMs;
        return {
          key: effect.id,
          sort: [
            effect.observationHandle,
            effect.terminalStatus,
            effect.endpointStatus,
            effect.action,
            describeRun(run),
            effect.experimentId,
            effect.initiatedAt ?? effect.initiatedAtMs,
            resolvedAfter,
            effect.crossRunRoute,
          ],
          cells: [
            { code: effect.observationHandle },
            {
              badge: STATUS_TONE[effect.terminalStatus],
              text: effect.terminalStatus,
              ...(effect.terminalStatus === "unresolved" ? { italic: true } : {}),
            },
            effect.endpointStatus,
            { code: effect.action },
            { href: `/runs/${effect.runId}`, text: describeRun(run) },
            { href: `/experiments/${effect.experimentId}`, code: shortId(effect.experimentId), label: `Experiment ${effect.experimentId}` },
            effect.initiatedAt ? { time: effect.initiatedAt } : { muted: "no clock origin" },
            resolvedAfter === null ? "unresolved" : formatDuration(resolvedAfter),
            effect.crossRunRoute,
          ],
        };
      })}
    />
  );
}

import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { DataGrid, type GridColumn } from "@/components/ui/data-grid";
import { Time } from "@/components/ui/time";
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
  { header: "Cross-run route" },
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
            <code key="h">{effect.observationHandle}</code>,
            <Badge
              key="t"
              tone={STATUS_TONE[effect.terminalStatus]}
              className={effect.terminalStatus === "unresolved" ? "italic" : undefined}
            >
              {effect.terminalStatus}
            </Badge>,
            effect.endpointStatus,
            <code key="a">{effect.action}</code>,
            <Link key="r" href={`/runs/${effect.runId}`}>
              {describeRun(run)}
            </Link>,
            <Link key="x" href={`/experiments/${effect.experimentId}`} aria-label={`Experiment ${effect.experimentId}`}>
              <code>{shortId(effect.experimentId)}</code>
            </Link>,
            effect.initiatedAt ? <Time key="i" iso={effect.initiatedAt} /> : <span className="text-muted-foreground">no clock origin</span>,
            resolvedAfter === null ? "unresolved" : formatDuration(resolvedAfter),
            <span key="c" className="block min-w-40">
              {effect.crossRunRoute}
            </span>,
          ],
        };
      })}
    />
  );
}

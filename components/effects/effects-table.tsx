import Link from "next/link";
import { DataTable } from "@/components/data-table";
import styles from "@/components/runs/runs.module.css";
import type { EffectListRow } from "@/lib/dashboard/effects";
import { describeRun, formatServiceMs, shortId } from "@/lib/dashboard/format";

const COLUMNS = ["Operation handle", "Terminal status", "Status at the endpoint", "Action", "Run", "Experiment", "Initiated (service ms)", "Resolved (service ms)", "Cross-run route"];

/** One page of open-effects records, unresolved first, each linking to its run. */
export function EffectsTable({ effects, caption }: { effects: readonly EffectListRow[]; caption: string }) {
  return (
    <DataTable caption={caption} columns={COLUMNS}>
          {effects.map((effect) => {
            const run = { condition: effect.runCondition, delayMs: effect.runDelayMs, scheduleId: effect.runScheduleId, repetition: effect.runRepetition, role: effect.runRole };
            return (
              <tr key={effect.id}>
                <th scope="row">
                  <code>{effect.observationHandle}</code>
                </th>
                <td className={effect.terminalStatus === "unresolved" ? styles.unresolved : undefined}>{effect.terminalStatus}</td>
                <td>{effect.endpointStatus}</td>
                <td>
                  <code>{effect.action}</code>
                </td>
                <td>
                  <Link href={`/runs/${effect.runId}`}>{describeRun(run)}</Link>
                </td>
                <td>
                  <Link href={`/experiments/${effect.experimentId}`} aria-label={`Experiment ${effect.experimentId}`}>
                    <code>{shortId(effect.experimentId)}</code>
                  </Link>
                </td>
                <td className="num">{formatServiceMs(effect.initiatedAtMs)}</td>
                <td className="num">{effect.terminalStatus === "unresolved" ? "unresolved" : formatServiceMs(effect.resolvedAtMs)}</td>
                <td className="evidence">{effect.crossRunRoute}</td>
              </tr>
            );
          })}
    </DataTable>
  );
}

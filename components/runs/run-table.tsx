import Link from "next/link";
import { DataTable } from "@/components/data-table";
import { conditionLabel, describeRun, shortId } from "@/lib/dashboard/format";
import type { RunListRow } from "@/lib/dashboard/runs";
import { CLASSIFICATION_LABELS } from "@/lib/replay/display";
import { AgreementText, ExposureText, LabelText } from "./label-text";

const COLUMNS = ["Run", "Condition", "Delay (ms)", "Schedule", "Repetition", "Role", "Endpoint label", "Terminal label", "Recorded label", "Agreement", "Exposure", "Classification"];

/** One page of runs, each linking to its own page. */
export function RunTable({ runs, caption }: { runs: readonly RunListRow[]; caption: string }) {
  return (
    <DataTable caption={caption} columns={COLUMNS}>
          {runs.map((run) => (
            <tr key={run.id}>
              <th scope="row">
                {/* The accessible name starts with the visible text, then says which run it is. */}
                <Link href={`/runs/${run.id}`} aria-label={`Run ${shortId(run.id)}: ${describeRun(run)}`}>
                  Run <code>{shortId(run.id)}</code>
                </Link>
              </th>
              <td>{conditionLabel(run.condition)}</td>
              <td className="num">{run.delayMs}</td>
              <td className="num">{run.scheduleId}</td>
              <td className="num">{run.repetition}</td>
              <td>{run.role}</td>
              <td>
                <LabelText value={run.endpointLabel} />
              </td>
              <td>
                <LabelText value={run.terminalLabel} />
              </td>
              <td>
                <LabelText value={run.recordedLabel} />
              </td>
              <td className="nowrap">
                <AgreementText value={run.agreement} />
              </td>
              <td className="nowrap">
                <ExposureText value={run.exposure} />
              </td>
              <td>{CLASSIFICATION_LABELS[run.classification]}</td>
            </tr>
          ))}
    </DataTable>
  );
}

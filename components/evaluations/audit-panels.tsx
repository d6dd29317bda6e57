import Link from "next/link";
import { EmptyState } from "@/components/ui/empty-state";
import { Section } from "@/components/ui/page-header";
import { Alert } from "@/components/ui/alert";
import { DataTable, RowHead, Td } from "@/components/ui/table";
import { REASON_LABELS } from "@/lib/evaluations/read/display";
import type { EvaluationSummary } from "@/lib/evaluations/read/read-boundary";
import { UNRESOLVED_REASONS } from "@/lib/evaluations/vocabulary";
import { ratio } from "@/lib/format/numbers";

/** A count that opens the runs it counts (the evaluation's runs list, or its share link's). */
function RunsLink({ runsHref, filter, children }: { runsHref: string; filter: Record<string, string>; children: React.ReactNode }) {
  return <Link href={`${runsHref}?${new URLSearchParams(filter)}`}>{children}</Link>;
}

/** Unresolved runs by reason and by the open effect's tool, each count linking to those runs. */
export function UnresolvedPanel({
  runsHref,
  unresolved,
  runs,
}: {
  runsHref: string;
  unresolved: EvaluationSummary["unresolved"];
  runs: number;
}) {
  const tools = Object.entries(unresolved.byTool).sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  return (
    <Section
      title={`Unresolved runs (${ratio(unresolved.n, runs)})`}
      id="unresolved"
      description="Unresolved, not failed: a relevant effect was still open at scoring."
      howToRead="A run is unresolved, not failed, when a relevant effect was still open at scoring; the reason is its earliest open effect's."
    >
      {unresolved.n === 0 ? (
        <EmptyState title="No run is unresolved">
          <p>Every relevant effect was terminal when its run was scored.</p>
        </EmptyState>
      ) : (
        <div className="grid gap-4 lg:grid-cols-2">
          <DataTable
            caption="By reason (unresolved runs)"
            columns={["Reason", "Runs / unresolved"]}
            numericColumns={[1]}
            testId="unresolved-by-reason"
          >
            {UNRESOLVED_REASONS.filter((r) => unresolved.byReason[r]).map((reason) => (
              <tr key={reason}>
                <RowHead>
                  <code>{reason}</code>: {REASON_LABELS[reason]}
                </RowHead>
                <Td numeric>
                  <RunsLink runsHref={runsHref} filter={{ reason }}>
                    {ratio(unresolved.byReason[reason] ?? 0, unresolved.n)}
                  </RunsLink>
                </Td>
              </tr>
            ))}
          </DataTable>
          <DataTable
            caption="By the open effect's tool (unresolved runs)"
            columns={["Tool", "Runs / unresolved"]}
            numericColumns={[1]}
            testId="unresolved-by-tool"
          >
            {tools.map(([tool, n]) => (
              <tr key={tool}>
                <RowHead>
                  <code>{tool}</code>
                </RowHead>
                <Td numeric>
                  <RunsLink runsHref={runsHref} filter={{ tool }}>
                    {ratio(n, unresolved.n)}
                  </RunsLink>
                </Td>
              </tr>
            ))}
          </DataTable>
        </div>
      )}
    </Section>
  );
}

/** Run rows against analysis units, and the largest connected groups with the surfaces that connect them. */
export function UnitsPanel({
  runsHref,
  units,
  largest,
  resetsOverriddenByCanary = 0,
}: {
  runsHref: string;
  units: EvaluationSummary["units"];
  largest: { unit: string; label?: string; runs: number; surfaces: string[] }[];
  /** Verified resets whose canary was found after them: they break no route. */
  resetsOverriddenByCanary?: number;
}) {
  return (
    <Section
      title="Analysis units"
      id="units"
      description={`${units.runRows} run rows form ${units.analysisUnits} analysis units.`}
      howToRead={`${units.runRows} run rows form ${units.analysisUnits} analysis units: runs connected through a surface (one writes, the other reads or is scored on it later, no verified reset between) are one unit.`}
    >
      {resetsOverriddenByCanary > 0 ? (
        <Alert tone="warning" className="mb-3" data-testid="canary-overridden-resets">
          <p>
            {resetsOverriddenByCanary} reset(s) recorded as verified count as not verified: a canary planted before each was found after it
            (the paper, §4.1: a reset counts only when verified), so they break no route and the runs they would have separated stay
            connected.
          </p>
        </Alert>
      ) : null}
      {largest.length === 0 ? (
        <EmptyState title="No two runs are connected">
          <p>Every run is its own unit.</p>
        </EmptyState>
      ) : (
        <DataTable
          caption={`The largest connected groups (${largest.length} shown)`}
          columns={["Unit (by its first run)", "Runs", "Connecting surfaces"]}
          numericColumns={[1]}
          testId="largest-units"
        >
          {largest.map((u) => (
            <tr key={u.unit}>
              <RowHead>
                <RunsLink runsHref={runsHref} filter={{ unit: u.unit }}>
                  {u.label ?? `unit ${u.unit}`}
                </RunsLink>
              </RowHead>
              <Td numeric>{u.runs}</Td>
              <Td className="[overflow-wrap:anywhere]">
                {u.surfaces.slice(0, 8).map((s, i) => (
                  <span key={s}>
                    {i ? ", " : ""}
                    <code>{s}</code>
                  </span>
                ))}
                {u.surfaces.length > 8 ? ` and ${u.surfaces.length - 8} more` : ""}
              </Td>
            </tr>
          ))}
        </DataTable>
      )}
    </Section>
  );
}

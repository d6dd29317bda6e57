import type { ReactNode } from "react";
import { EffectIdentityCells } from "@/components/effects/effect-identity-cells";
import { Badge } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/empty-state";
import { Facts } from "@/components/ui/facts";
import { PageHeader, Section } from "@/components/ui/page-header";
import { DataTable, Td } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import { formatElapsed } from "@/lib/format/time";
import type { LiveRunView as LiveRun } from "@/lib/evaluations/read/live-runs";
import { RefreshWhileOpen } from "./refresh-while-open";

const evidenceText = (evidence: unknown) => (typeof evidence === "string" ? evidence : JSON.stringify(evidence));

/** A live run that has no stored record yet (open): what its events say so far, refreshed every few seconds. */
/** `children`: what else the page shows of the run (its OpenTelemetry spans), after its effects. */
export function LiveRunView({
  evaluation,
  run,
  children,
}: {
  evaluation: { id: string; name: string };
  run: LiveRun;
  children?: ReactNode;
}) {
  const start = Date.parse(run.record.startedAt);
  const since = (iso: string) => formatElapsed(Date.parse(iso) - start);
  const effects = run.record.effects ?? [];
  const surfaceEvents = [
    ...(run.record.touches ?? []).map((t) => ({ at: t.at, what: `${t.op} ${t.surface}` })),
    ...(run.record.resets ?? []).map((r) => ({ at: r.at, what: `reset ${r.surface} (${r.verified ? "verified" : "not verified"})` })),
  ].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  return (
    <>
      {run.state === "open" ? <RefreshWhileOpen seconds={5} /> : null}
      <PageHeader
        crumbs={[
          { href: "/evaluations", label: "Evaluations" },
          { href: `/evaluations/${evaluation.id}`, label: evaluation.name },
          { href: `/evaluations/${evaluation.id}/runs`, label: "Runs" },
        ]}
        title={
          <>
            Run <code>{run.externalId}</code>
          </>
        }
        meta={
          <>
            <Badge tone="warning" data-testid="live-run-state">
              live · {run.state}
            </Badge>
            <span>
              task <code>{run.taskId}</code>
              {run.attempt !== null ? `, attempt ${run.attempt}` : ""}
            </span>
          </>
        }
      />
      <Facts
        items={[
          ["State", run.state === "open" ? "open: not scored yet, so in no figure" : run.state, "live-state"],
          ["Started", <Time key="s" iso={run.record.startedAt} />],
          ["Stored unscored at", <Time key="e" iso={run.expiresAt.toISOString()} />, "live-expires"],
          ["Events", String(run.eventCount), "live-events"],
          run.clockSkewEvents > 0
            ? ["Clock skew", `${run.clockSkewEvents} event(s) timed before the run's start, kept as sent`, "live-skew"]
            : null,
        ]}
      />
      <Section
        title={`Effects so far (${effects.length})`}
        description="Each effect at its latest status; its first terminal status is its resolution. Scoring fixes the status each had at that moment."
      >
        {effects.length === 0 ? (
          <EmptyState title="No effect recorded yet" />
        ) : (
          <DataTable
            caption="The live run's effects and their current status"
            columns={["Effect", "Tool", "Surface, handle", "Requested", "Current status", "Resolution"]}
            testId="live-effects"
          >
            {effects.map((effect) => (
              <tr key={effect.effectId}>
                <EffectIdentityCells effect={effect} />
                <Td className="tabular-nums">{since(effect.requestedAt)}</Td>
                <Td>{effect.statusAtScoring}</Td>
                <Td className="[overflow-wrap:anywhere]">
                  {effect.resolution
                    ? `${effect.resolution.status} at ${since(effect.resolution.at)}: ${evidenceText(effect.resolution.evidence)}`
                    : "none yet"}
                </Td>
              </tr>
            ))}
          </DataTable>
        )}
      </Section>
      <Section title={`Surface touches and resets (${surfaceEvents.length})`}>
        {surfaceEvents.length === 0 ? (
          <EmptyState title="No surface touched yet" />
        ) : (
          <DataTable caption="Touches and resets in time order" columns={["At", "What"]} testId="live-surfaces">
            {surfaceEvents.map((event, i) => (
              <tr key={i}>
                <Td className="tabular-nums">{since(event.at)}</Td>
                <Td className="[overflow-wrap:anywhere]">
                  <code>{event.what}</code>
                </Td>
              </tr>
            ))}
          </DataTable>
        )}
      </Section>
      {children}
    </>
  );
}

import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { OpenEffectRecord } from "@/components/effects/open-effect-record";
import { RunLabels } from "@/components/runs/run-labels";
import { RunTimeline } from "@/components/runs/run-timeline";
import { WriteIntervals } from "@/components/runs/write-intervals";
import { SharePanel } from "@/components/share/share-panel";
import { Badge, StateBadge } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/empty-state";
import { Facts } from "@/components/ui/facts";
import { PageHeader, Section } from "@/components/ui/page-header";
import { Time } from "@/components/ui/time";
import { requirePagePermission } from "@/lib/auth/guard";
import { can } from "@/lib/auth/permissions";
import { runIdSchema } from "@/lib/experiments/read/filters";
import { conditionLabel, describeRun, experimentTitle, shortId } from "@/lib/format/runs";
import { loadRunDetail } from "@/lib/experiments/read/runs";
import { scoringBeforeEndpoint } from "@/lib/experiments/read/timeline";
import { formatDuration, formatSinceStart } from "@/lib/format/time";
import { getDb } from "@/lib/db/web-process-db";
import { CLASSIFICATION_LABELS } from "@/lib/format/replay-labels";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Run" };

export default async function RunPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const principal = await requirePagePermission("results:read", `/runs/${id}`);
  if (!runIdSchema.safeParse({ id }).success) notFound();
  const detail = await loadRunDetail(getDb(), id);
  if (!detail) notFound();
  const { run, experiment, openEffects, pairedRun, timeline, writes, explanation } = detail;
  const title = experimentTitle(experiment);

  return (
    <>
      <PageHeader
        crumbs={[
          { href: "/", label: "Experiments" },
          { href: `/experiments/${experiment.id}`, label: title },
          { href: `/experiments/${experiment.id}/runs`, label: "Runs" },
        ]}
        title={
          <>
            Run <code>{shortId(run.id)}</code>
          </>
        }
        meta={
          <>
            <Badge>{run.test}</Badge>
            <span>{describeRun(run)}</span>
          </>
        }
      />
      <div className="grid gap-6 xl:grid-cols-2">
        <Facts
          items={[
            ["Run id", <code key="id">{run.id}</code>],
            [
              "Experiment",
              <span key="x" className="inline-flex flex-wrap items-center gap-2">
                <Link href={`/experiments/${experiment.id}`}>{title}</Link> <StateBadge state={experiment.state} />
              </span>,
            ],
            ["Test", run.test],
            ["Condition", conditionLabel(run.condition)],
            ["Nominal delay", `${run.delayMs} ms`],
            ["Schedule, repetition", `${run.scheduleId}, ${run.repetition}`],
            ["Role", run.role],
            ["Classification", CLASSIFICATION_LABELS[run.classification]],
            ["Inherited state", run.inheritedState],
          ]}
        />
        <Facts
          items={[
            ["Started", run.startedAt ? <Time key="s" iso={run.startedAt} /> : "no service clock origin recorded"],
            ["Endpoint", formatSinceStart(run.endpointAtMs, run.startedAtMs)],
            ["Scored", <ScoredAt key="scored" run={run} />],
            ["Ended", formatSinceStart(run.endedAtMs, run.startedAtMs)],
            [
              "Measured delay",
              run.measuredDelayMs === null ? "none" : `${formatDuration(run.measuredDelayMs)} (nominal ${run.delayMs} ms)`,
            ],
            [
              "Task, namespace, key",
              <span key="t" className="[overflow-wrap:anywhere]">
                <code>{run.taskId}</code>, <code>{run.namespace}</code>, <code>{run.key}</code>
              </span>,
            ],
          ]}
        />
      </div>

      <Section title="Labels and why">
        <RunLabels run={run} explanation={explanation} />
      </Section>

      {run.test === "separation" ? (
        <Section title="Paired run">
          {pairedRun ? (
            <p className="text-sm">
              Run {pairedRun.role} of this pair:{" "}
              <Link href={`/runs/${pairedRun.id}`} data-testid="paired-run">
                <code>{pairedRun.id}</code>
              </Link>
            </p>
          ) : (
            <p className="text-sm text-muted-foreground">The other run of this pair is not stored.</p>
          )}
        </Section>
      ) : null}

      <Section title="Timeline" description="Every event the run's evidence records, as time since the run's start.">
        <RunTimeline events={timeline} role={run.role} />
      </Section>

      {run.role === "B" ? null : (
        <Section
          title={`Writes (${writes.length})`}
          description="Each state-changing call of the trace is a delayed write on its own key; the label is final only when every one of them is terminal."
        >
          <WriteIntervals writes={writes} />
        </Section>
      )}

      <Section
        title={`Open effects (${openEffects.length})`}
        description="Operations this run left that could still change state after its endpoint (the paper's Table C.1)."
      >
        {openEffects.length === 0 ? (
          <EmptyState title="This run left no open-effects record">
            {run.role === "B" ? <p>B schedules no write: its pair&apos;s A holds the record.</p> : null}
          </EmptyState>
        ) : (
          <div className="space-y-4">
            {openEffects.map((effect) => (
              <OpenEffectRecord key={effect.id} effect={effect} runStartMs={run.startedAtMs} />
            ))}
          </div>
        )}
      </Section>

      {can(principal.role, "share:create") ? <SharePanel resourceType="run" resourceId={run.id} /> : null}

      <Section title="Evidence">
        <details className="rounded-lg border border-border bg-card p-4">
          <summary className="cursor-pointer text-sm font-medium">The run&apos;s stored evidence (JSON, service-clock ms)</summary>
          <pre className="mt-3 max-h-[40rem] overflow-auto rounded-md bg-muted p-3 text-xs" tabIndex={0}>
            {JSON.stringify(run.evidence, null, 2)}
          </pre>
        </details>
      </Section>
    </>
  );
}

/** When the run was scored, and why that precedes its endpoint when it does (a pair's run A, scored on its terminal label). */
function ScoredAt({
  run,
}: {
  run: { role: string; condition: string; startedAtMs: number; endpointAtMs: number | null; scoredAtMs: number | null };
}) {
  const early = scoringBeforeEndpoint(run);
  return (
    <>
      {formatSinceStart(run.scoredAtMs, run.startedAtMs)}
      {early ? (
        <span className="block text-xs text-muted-foreground" data-testid="scored-before-endpoint">
          {early}
        </span>
      ) : null}
    </>
  );
}

import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { OpenEffectRecord } from "@/components/effects/open-effect-record";
import { RunLabels } from "@/components/runs/run-labels";
import { RunTimeline } from "@/components/runs/run-timeline";
import { ShareButton } from "@/components/share-button";
import { requirePagePermission } from "@/lib/auth/guard";
import { can } from "@/lib/auth/permissions";
import { runIdSchema } from "@/lib/dashboard/filters";
import { conditionLabel, describeRun, formatServiceMs } from "@/lib/dashboard/format";
import { loadRunDetail } from "@/lib/dashboard/runs";
import { getDb } from "@/lib/db/client";
import { CLASSIFICATION_LABELS } from "@/lib/replay/display";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Run" };

export default async function RunPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const principal = await requirePagePermission("results:read", `/runs/${id}`);
  if (!runIdSchema.safeParse({ id }).success) notFound();
  const detail = await loadRunDetail(getDb(), id);
  if (!detail) notFound();
  const { run, experiment, openEffects, pairedRun, timeline, explanation } = detail;

  return (
    <>
      <p>
        <Link href={`/experiments/${experiment.id}/runs`}>Runs of experiment {experiment.id.slice(0, 8)}</Link>
      </p>
      <h1>
        Run <code>{run.id}</code>
      </h1>
      <p className="muted">{describeRun(run)}</p>
      {can(principal.role, "share:create") ? <ShareButton resourceType="run" resourceId={run.id} /> : null}
      <dl className="facts">
        <dt>Experiment</dt>
        <dd>
          <Link href={`/experiments/${experiment.id}`}>
            <code>{experiment.id}</code>
          </Link>{" "}
          ({experiment.state})
        </dd>
        <dt>Test</dt>
        <dd>{run.test}</dd>
        <dt>Condition</dt>
        <dd>{conditionLabel(run.condition)}</dd>
        <dt>Nominal delay</dt>
        <dd>{run.delayMs} ms</dd>
        <dt>Schedule, repetition</dt>
        <dd>
          {run.scheduleId}, {run.repetition}
        </dd>
        <dt>Role</dt>
        <dd>{run.role}</dd>
        <dt>Classification</dt>
        <dd>{CLASSIFICATION_LABELS[run.classification]}</dd>
        <dt>Inherited state</dt>
        <dd>{run.inheritedState}</dd>
        <dt>Measured delay</dt>
        <dd>{run.measuredDelayMs === null ? "none" : `${run.measuredDelayMs.toFixed(3)} ms`}</dd>
        <dt>Started (UTC)</dt>
        <dd>{run.startedAt ? <time dateTime={run.startedAt}>{run.startedAt}</time> : "no service clock origin recorded"}</dd>
        <dt>Started (service ms)</dt>
        <dd>{formatServiceMs(run.startedAtMs)}</dd>
        <dt>Task, namespace, key</dt>
        <dd>
          <code>{run.taskId}</code>, <code>{run.namespace}</code>, <code>{run.key}</code>
        </dd>
      </dl>

      <h2>Labels and why</h2>
      <RunLabels run={run} explanation={explanation} />

      {run.test === "separation" ? (
        <>
          <h2>Paired run</h2>
          {pairedRun ? (
            <p>
              Run {pairedRun.role} of this pair:{" "}
              <Link href={`/runs/${pairedRun.id}`} data-testid="paired-run">
                <code>{pairedRun.id}</code>
              </Link>
            </p>
          ) : (
            <p className="muted">The other run of this pair is not stored.</p>
          )}
        </>
      ) : null}

      <h2>Timeline</h2>
      <RunTimeline events={timeline} role={run.role} />

      <h2>Open effects ({openEffects.length})</h2>
      {openEffects.length === 0 ? (
        <p className="muted">This run left no open-effects record{run.role === "B" ? ": B schedules no write (its pair's A holds the record)" : ""}.</p>
      ) : (
        openEffects.map((effect) => <OpenEffectRecord key={effect.id} effect={effect} />)
      )}

      <h2>Evidence</h2>
      <details>
        <summary>The run&apos;s stored evidence (JSON, service-clock ms)</summary>
        <pre className="evidence-json">{JSON.stringify(run.evidence, null, 2)}</pre>
      </details>
    </>
  );
}

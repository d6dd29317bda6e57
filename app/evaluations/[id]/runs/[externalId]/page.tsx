import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { EvaluationRunReport } from "@/components/evaluations/evaluation-run-report";
import { ResolutionForm } from "@/components/evaluations/resolution-form";
import { LiveRunView } from "@/components/runs/live-run-view";
import { SpanTimeline } from "@/components/runs/span-timeline";
import { Section } from "@/components/ui/page-header";
import { requirePagePermission } from "@/lib/auth/guard";
import { can } from "@/lib/auth/permissions";
import { getDb, getSql } from "@/lib/db/web-process-db";
import { toolClassifier } from "@/lib/evaluations/policy";
import { loadEvaluationRunPage } from "@/lib/evaluations/read/run-page";
import { runPageView } from "@/lib/evaluations/read/run-messages";
import { MAX_SPANS_SHOWN } from "@/lib/evaluations/read/run-spans";
import { spanTimeline } from "@/lib/evaluations/read/span-timeline";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Evaluation run" };

export default async function EvaluationRunPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string; externalId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { id, externalId: encoded } = await params;
  const { messagesFrom, searched } = runPageView(await searchParams);
  const externalId = decodeURIComponent(encoded);
  const principal = await requirePagePermission("results:read", `/evaluations/${id}/runs/${encoded}`);
  const page = await loadEvaluationRunPage(getDb(), getSql(), id, externalId, messagesFrom);
  if (!page) notFound();
  if (page.kind === "live") {
    // A live run still open has no stored record yet: its events so far.
    const { evaluation, live, spans } = page;
    return (
      <LiveRunView evaluation={{ id, name: evaluation.name }} run={live}>
        {spans.length > 0 ? (
          <Section title={`Trace (${spans.length} spans)`} description="The run's OpenTelemetry spans so far, each under its parent.">
            <SpanTimeline rows={spanTimeline(spans, Date.parse(live.record.startedAt))} truncated={spans.length >= MAX_SPANS_SHOWN} />
          </Section>
        ) : null}
      </LiveRunView>
    );
  }
  const { evaluation, run, transcript, spans, recorders } = page;
  const classOf = toolClassifier(evaluation.effectPolicy);
  return (
    <EvaluationRunReport
      searched={searched}
      evaluation={evaluation}
      run={run}
      transcript={transcript}
      spans={spans}
      recorders={recorders}
      crumbs={[
        { href: "/evaluations", label: "Evaluations" },
        { href: `/evaluations/${id}`, label: evaluation.name },
        { href: `/evaluations/${id}/runs`, label: "Runs" },
      ]}
      runsHref={`/evaluations/${id}/runs`}
      runHref={`/evaluations/${id}/runs/${encoded}`}
      actions={
        <Link href={`/evaluations/${id}/compare-runs?a=${encodeURIComponent(run.externalId)}`} data-testid="compare-run-link">
          Compare with another run
        </Link>
      }
    >
      {can(principal.role, "evaluation:write") && run.effects.length > 0 ? (
        <Section
          title="Record resolution evidence"
          description="Evidence of how an effect ended, found after the run (a ledger entry, a reconciliation): appended to its record, never overwriting, and the run's audit recomputed with it."
        >
          <ResolutionForm
            evaluationId={id}
            runExternalId={run.externalId}
            effects={run.effects.filter((e) => classOf(e.tool) !== "read_only").map((e) => ({ effectId: e.effect_id, tool: e.tool }))}
          />
        </Section>
      ) : null}
    </EvaluationRunReport>
  );
}

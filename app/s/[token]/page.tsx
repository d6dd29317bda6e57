import { Eye } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { headers } from "next/headers";
import { EvaluationReport } from "@/components/evaluations/evaluation-report";
import { CanaryReport } from "@/components/experiment/canary-report";
import { ExperimentReport } from "@/components/experiment/experiment-report";
import { ComparisonReport } from "@/components/statistics/comparison-report";
import { ArgumentBody, ArgumentGlance } from "@/components/review/argument-report";
import { MatrixTable, Table3Table } from "@/components/review/matrix-report";
import { RunReport } from "@/components/share/run-report";
import { SharedRefusal } from "@/components/share/shared-notice";
import { Alert } from "@/components/ui/alert";
import { buttonClass } from "@/components/ui/button";
import { StateBadge } from "@/components/ui/badge";
import { PageHeader, Section } from "@/components/ui/page-header";
import { Time } from "@/components/ui/time";
import { experimentTitle } from "@/lib/format/runs";
import { ratio } from "@/lib/format/numbers";
import { getDb } from "@/lib/db/web-process-db";
import { FIELD_INFO, REVIEW_FIELDS } from "@/lib/review/codes";
import { lookUpShareLink } from "@/lib/share/access";
import { shareRefusal } from "@/lib/share/refusal";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Shared result", robots: { index: false, follow: false }, referrer: "no-referrer" };

/**
 * A share link's page, for anyone holding the token and no account: exactly one resource, read-only,
 * with a banner saying what the reviewer sees (the frozen snapshot's time and hash, or "live").
 */
export default async function SharedPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const opened = await lookUpShareLink(getDb(), await headers(), token);
  const refusal = shareRefusal(opened);
  if (refusal || opened.status !== "ok") return <SharedRefusal refusal={refusal!} />;
  const { link, content, contentHash, snapshotAt } = opened;
  const what =
    content.kind === "experiment" || content.kind === "canary_experiment" ? (
      <>experiment “{experimentTitle(content.experiment)}”</>
    ) : content.kind === "evaluation" ? (
      <>evaluation “{content.evaluation.name}”</>
    ) : content.kind === "run" ? (
      "run"
    ) : content.kind === "completion_argument" ? (
      <>completion argument of “{content.protocol.name}”</>
    ) : content.kind === "comparison" ? (
      <>comparison of {content.comparison.evaluations.length} evaluations</>
    ) : (
      "protocol review matrix"
    );
  return (
    <>
      <Alert tone="info" role="note" data-testid="share-banner" className="mb-6" title={<>Read-only shared {what}</>}>
        <p>
          {link.mode === "frozen" ? (
            <>
              Frozen snapshot taken <Time iso={iso(snapshotAt)} />, SHA-256 <code data-testid="share-hash">{contentHash}</code>: this is
              exactly what the sender saw.
            </>
          ) : (
            <>
              Live view as of <Time iso={iso(snapshotAt)} />: it follows the {link.resourceType} as it changes. Content SHA-256{" "}
              <code data-testid="share-hash">{contentHash}</code>.
            </>
          )}{" "}
          {link.expiresAt ? (
            <>
              The link expires <Time iso={iso(link.expiresAt)} />.
            </>
          ) : (
            <>The link does not expire; its sender can revoke it.</>
          )}
        </p>
      </Alert>
      {content.kind === "experiment" ? (
        <>
          <SharedExperimentHeader experiment={content.experiment} />
          <ExperimentReport
            experiment={content.experiment}
            summary={content.summary}
            byDelay={content.byDelay}
            unresolved={content.unresolved}
            config={content.experiment.config}
          />
        </>
      ) : content.kind === "canary_experiment" ? (
        <>
          <SharedExperimentHeader experiment={content.experiment} />
          <CanaryReport results={content.canary} />
        </>
      ) : content.kind === "run" ? (
        <RunReport content={content} />
      ) : content.kind === "evaluation" ? (
        <>
          <PageHeader
            title={<span data-testid="evaluation-name">{content.evaluation.name}</span>}
            meta={
              <>
                <span>harness {content.evaluation.harness ?? "not given"}</span>
                <span>benchmark {content.evaluation.benchmark ?? "not given"}</span>
                <span>effect policy version {content.evaluation.effectPolicyVersion}</span>
              </>
            }
            actions={
              <>
                <Link href={`/s/${token}/runs`} className={buttonClass({ size: "sm" })} data-testid="shared-runs-link">
                  Its runs
                </Link>
                <Link
                  href={`/s/${token}/runs?finality=unresolved`}
                  className={buttonClass({ size: "sm" })}
                  data-testid="shared-unresolved-link"
                >
                  Unresolved runs ({ratio(content.summary.unresolved.n, content.summary.reported.n)})
                </Link>
              </>
            }
          />
          <EvaluationReport
            evaluation={{ ...content.evaluation, pendingPolicy: null }}
            summary={content.summary}
            largestUnits={content.largestUnits}
            tools={content.tools}
            runsHref={`/s/${token}/runs`}
          />
        </>
      ) : content.kind === "completion_argument" ? (
        <>
          <PageHeader
            title={<span data-testid="argument-title">Completion argument: {content.protocol.name}</span>}
            description={content.protocol.scope ?? undefined}
            meta={
              <>
                {content.protocol.benchmarkVersion ? <span>benchmark version {content.protocol.benchmarkVersion}</span> : null}
                {content.current ? <span>version {content.current.version}</span> : <span>no argument written yet</span>}
                <span>
                  Review codes (consensus):{" "}
                  {REVIEW_FIELDS.map((f) => `${FIELD_INFO[f].label} ${content.consensus[f] ?? "uncoded"}`).join(" · ")}
                </span>
              </>
            }
          />
          {content.current && content.status ? (
            <>
              <ArgumentGlance argument={content.current.argument} status={content.status} />
              <ArgumentBody argument={content.current.argument} evidence={content.evidence} linkable={false} />
            </>
          ) : null}
        </>
      ) : content.kind === "comparison" ? (
        <>
          <PageHeader title="Compare evaluations" description={content.comparison.evaluations.map((e) => e.name).join(" · ")} />
          <ComparisonReport comparison={content.comparison} linksToEvaluations={false} />
        </>
      ) : (
        <>
          <PageHeader
            title="Protocol review: consensus codes"
            description="The consensus code of each protocol and field, and Table 3 computed from them."
          />
          <MatrixTable
            protocols={content.protocols}
            matrix={content.consensus}
            reviewers={content.consensusReviewers}
            caption="Consensus code per protocol and field"
          />
          <Section title="Table 3, computed from the consensus">
            <Table3Table rows={content.table3} />
          </Section>
          {content.arguments?.length ? (
            <Section
              title="Completion arguments"
              description="Each protocol's argument as written when this view was taken: its status at a glance, then the argument."
            >
              <div className="space-y-4" data-testid="shared-arguments">
                {content.arguments.map((a) =>
                  a.current && a.status ? (
                    <details key={a.protocol.name} className="rounded-lg border border-border p-4">
                      <summary className="cursor-pointer font-semibold">
                        {a.protocol.name}: {a.status.answered}/{a.status.of} questions answered, {a.status.flags.length} flag(s)
                      </summary>
                      <div className="mt-4">
                        <ArgumentGlance argument={a.current.argument} status={a.status} />
                        <ArgumentBody argument={a.current.argument} evidence={a.evidence} linkable={false} />
                      </div>
                    </details>
                  ) : null,
                )}
              </div>
            </Section>
          ) : null}
        </>
      )}
      <p className="mt-10 flex items-center gap-2 text-xs text-muted-foreground">
        <Eye aria-hidden="true" className="size-3.5" /> Shared from Boundary Lab: nothing here can be changed from this page.
      </p>
    </>
  );
}

function iso(value: Date | string): string {
  return typeof value === "string" ? value : value.toISOString();
}

function SharedExperimentHeader({ experiment }: { experiment: { id: string; name?: string | null; state: string } }) {
  return (
    <PageHeader
      title={experimentTitle(experiment)}
      meta={
        <>
          <StateBadge state={experiment.state} data-testid="experiment-state" />
          <span>
            id <code>{experiment.id}</code>
          </span>
        </>
      }
    />
  );
}

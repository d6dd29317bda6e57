import { Download, List } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { Suspense } from "react";
import { PolicyRecomputeProgress } from "@/components/evaluations/policy-recompute-progress";
import { DeleteEvaluationButton } from "@/components/evaluations/delete-evaluation-button";
import { EVALUATION_CONTENTS, EvaluationReport } from "@/components/evaluations/evaluation-report";
import { SharePanel } from "@/components/share/share-panel";
import { buttonClass } from "@/components/ui/button";
import { ContentsBar } from "@/components/ui/contents-bar";
import { PageHeader } from "@/components/ui/page-header";
import { PageLoading } from "@/components/ui/skeleton";
import { Time } from "@/components/ui/time";
import { requirePagePermission } from "@/lib/auth/guard";
import { can } from "@/lib/auth/permissions";
import { getSql } from "@/lib/db/web-process-db";
import { loadEvaluationPage, type EvaluationPageAudit } from "@/lib/evaluations/read/evaluation-page";
import { OpenLiveRunsNote } from "@/components/evaluations/open-live-runs-note";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Evaluation" };

export default async function EvaluationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const principal = await requirePagePermission("results:read", `/evaluations/${id}`);
  // Its reads are raw SQL, on the pool without Prisma's client (getSql); the audit's start beside the
  // header's, and the audit awaits them behind its loading state.
  const edits = can(principal.role, "evaluation:write");
  const page = loadEvaluationPage(getSql(), id, { edits });
  const header = await page.header;
  if (!header) notFound();
  const { evaluation, runs } = header;
  return (
    <>
      <PageHeader
        crumbs={[{ href: "/evaluations", label: "Evaluations" }]}
        title={<span data-testid="evaluation-name">{evaluation.name}</span>}
        meta={
          <>
            <span>harness {evaluation.harness ?? "not given"}</span>
            <span>benchmark {evaluation.benchmark ?? "not given"}</span>
            <Suspense fallback={<span>effect policy version {evaluation.effectPolicyVersion}</span>}>
              <AppliedPolicyVersion audit={page.audit} />
            </Suspense>
            <span>
              created <Time iso={evaluation.createdAt} />
              {evaluation.createdBy ? ` by ${evaluation.createdBy}` : ""}
            </span>
          </>
        }
        description={evaluation.description ? <span className="whitespace-pre-line">{evaluation.description}</span> : undefined}
        actions={
          <>
            <Link href={`/evaluations/${id}/runs`} className={buttonClass({ size: "sm" })}>
              <List aria-hidden="true" />
              Browse its runs
            </Link>
            <a
              href={`/api/v1/evaluations/${id}/export?format=csv`}
              download
              className={buttonClass({ size: "sm" })}
              data-testid="export-csv"
            >
              <Download aria-hidden="true" />
              Export CSV
            </a>
            <a
              href={`/api/v1/evaluations/${id}/export?format=json`}
              download
              className={buttonClass({ size: "sm" })}
              data-testid="export-json"
            >
              <Download aria-hidden="true" />
              JSON
            </a>
            {runs !== null ? <DeleteEvaluationButton id={id} name={evaluation.name} runs={runs} /> : null}
          </>
        }
      />
      <Suspense fallback={null}>
        <OpenLiveRunsNote evaluationId={id} open={page.openLiveRuns} />
      </Suspense>
      <ContentsBar contents={EVALUATION_CONTENTS} />
      <Suspense fallback={<PageLoading label="Loading the evaluation's audit…" />}>
        <Audit edits={edits} audit={page.audit} />
      </Suspense>
      {can(principal.role, "share:create") ? <SharePanel resourceType="evaluation" resourceId={id} /> : null}
    </>
  );
}

/** The header's policy version, as the audit below read it (a version applied between the two reads shows the audit's). */
async function AppliedPolicyVersion({ audit }: { audit: Promise<EvaluationPageAudit | null> }) {
  const read = await audit;
  return <span data-testid="policy-version">effect policy version {read?.evaluation.effectPolicyVersion}</span>;
}

async function Audit({ edits, audit }: { edits: boolean; audit: Promise<EvaluationPageAudit | null> }) {
  const read = await audit;
  if (!read) notFound(); // deleted since the header's read
  const { evaluation, summary, ...figures } = read;
  return (
    <>
      {summary.pendingPolicy ? (
        <PolicyRecomputeProgress
          evaluationId={evaluation.id}
          appliedVersion={summary.effectPolicyVersion}
          initial={summary.pendingPolicy}
        />
      ) : null}
      <EvaluationReport
        evaluation={evaluation}
        summary={summary}
        {...figures}
        edits={edits}
        runsHref={`/evaluations/${evaluation.id}/runs`}
      />
    </>
  );
}

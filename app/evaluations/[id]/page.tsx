import { Download, List } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { Suspense } from "react";
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
import { getDb } from "@/lib/db/client";
import type { Db } from "@/lib/db/prisma";
import { storedRunCount } from "@/lib/evaluations/delete-evaluation";
import { evaluationTools, largestUnits, resetsOverriddenByCanary } from "@/lib/evaluations/evaluation-runs";
import { evaluationStatistics } from "@/lib/evaluations/evaluation-statistics";
import { exclusionRuleHistory } from "@/lib/statistics/exclusion-rule-store";
import { getEvaluation, listEffectPolicyVersions } from "@/lib/evaluations/get-evaluation";
import type { EvaluationDetail } from "@/lib/evaluations/read-schemas";
import { evaluationSummary } from "@/lib/evaluations/summary";
import { listToolSuggestions } from "@/lib/evaluations/tool-suggestions";
import { listHarnessMetrics } from "@/lib/evaluations/harness-metrics";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Evaluation" };

export default async function EvaluationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const principal = await requirePagePermission("results:read", `/evaluations/${id}`);
  const db = getDb();
  // The audit's queries start beside the header's: the audit awaits them behind its loading state.
  const loadingEvaluation = getEvaluation(db, id);
  const results = loadAudit(db, id, loadingEvaluation);
  results.catch(() => {}); // an unknown id ends the page (404) before the audit awaits them
  const edits = can(principal.role, "evaluation:write");
  const [evaluation, runs] = await Promise.all([loadingEvaluation, edits ? storedRunCount(db, id) : null]);
  if (!evaluation) notFound();
  return (
    <>
      <PageHeader
        crumbs={[{ href: "/evaluations", label: "Evaluations" }]}
        title={<span data-testid="evaluation-name">{evaluation.name}</span>}
        meta={
          <>
            <span>harness {evaluation.harness ?? "not given"}</span>
            <span>benchmark {evaluation.benchmark ?? "not given"}</span>
            <span data-testid="policy-version">effect policy version {evaluation.effectPolicyVersion}</span>
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
      <ContentsBar contents={EVALUATION_CONTENTS} />
      <Suspense fallback={<PageLoading label="Loading the evaluation's audit…" />}>
        <Audit evaluation={evaluation} edits={edits} results={results} />
      </Suspense>
      {can(principal.role, "share:create") ? <SharePanel resourceType="evaluation" resourceId={id} /> : null}
    </>
  );
}

/** The summary, the largest units, the tools seen (under the policy, once read), the policy's versions, the statistics and the recorders' suggestions, queried in parallel. */
const loadAudit = (db: Db, id: string, evaluation: Promise<EvaluationDetail | null>) => {
  const summary = evaluationSummary(db, id); // read once, for the cards and the statistics
  return Promise.all([
    summary,
    largestUnits(db, id),
    evaluation.then((e) => (e ? evaluationTools(db, id, e.effectPolicy) : [])),
    listEffectPolicyVersions(db, id),
    evaluationStatistics(db, id, summary),
    resetsOverriddenByCanary(db, id),
    exclusionRuleHistory(db, { kind: "evaluation", id }),
    listToolSuggestions(db, id),
    listHarnessMetrics(db, id),
  ]);
};

async function Audit({
  evaluation,
  edits,
  results,
}: {
  evaluation: EvaluationDetail;
  edits: boolean;
  results: ReturnType<typeof loadAudit>;
}) {
  const [summary, units, tools, versions, statistics, overridden, rules, suggestions, harnessMetrics] = await results;
  return (
    <EvaluationReport
      evaluation={evaluation}
      summary={summary}
      largestUnits={units}
      tools={tools}
      versions={versions}
      statistics={{ ...statistics, ruleHistory: rules.versions }}
      edits={edits}
      linksToRuns
      resetsOverriddenByCanary={overridden}
      suggestions={suggestions}
      harnessMetrics={harnessMetrics}
    />
  );
}

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
import { getSql } from "@/lib/db/client";
import type { SqlClient } from "@/lib/db/sql-transaction";
import { storedRunCount } from "@/lib/evaluations/delete-evaluation";
import { evaluationTools, largestUnits, resetsOverriddenByCanary } from "@/lib/evaluations/read/evaluation-runs";
import { evaluationStatistics } from "@/lib/evaluations/read/evaluation-statistics";
import { exclusionRuleHistory } from "@/lib/statistics/exclusion-rule-store";
import { getEvaluation, listEffectPolicyVersions } from "@/lib/evaluations/read/get-evaluation";
import { readEvaluationSummary } from "@/lib/evaluations/read/summary";
import { underOneAppliedVersion } from "@/lib/evaluations/read/under-one-applied-version";
import { listToolSuggestions, type StoredToolSuggestion, type ToolAnnotations } from "@/lib/evaluations/tool-suggestions";
import { templateSuggestions, type TemplateSuggestion } from "@/lib/evaluations/read/template-suggestions";
import { toolClassifier } from "@/lib/evaluations/policy";
import type { EffectPolicy } from "@/lib/evaluations/schemas";
import { listHarnessMetrics } from "@/lib/evaluations/harness-metrics";
import { openLiveRuns } from "@/lib/evaluations/read/live-runs";
import { OpenLiveRunsNote } from "@/components/evaluations/open-live-runs-note";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Evaluation" };

export default async function EvaluationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const principal = await requirePagePermission("results:read", `/evaluations/${id}`);
  // Its reads are raw SQL, on the pool without Prisma's client (getSql).
  const db = getSql();
  // The audit's queries start beside the header's: the audit awaits them behind its loading state.
  const edits = can(principal.role, "evaluation:write");
  const results = loadAudit(db, id, edits);
  results.catch(() => {}); // an unknown id ends the page (404) before the audit awaits them
  const [evaluation, runs] = await Promise.all([getEvaluation(db, id), edits ? storedRunCount(db, id) : null]);
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
            <Suspense fallback={<span>effect policy version {evaluation.effectPolicyVersion}</span>}>
              <AppliedPolicyVersion results={results} />
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
        <OpenLiveRunsNote evaluationId={id} open={openLiveRuns(db, id, 1)} />
      </Suspense>
      <ContentsBar contents={EVALUATION_CONTENTS} />
      <Suspense fallback={<PageLoading label="Loading the evaluation's audit…" />}>
        <Audit edits={edits} results={results} />
      </Suspense>
      {can(principal.role, "share:create") ? <SharePanel resourceType="evaluation" resourceId={id} /> : null}
    </>
  );
}

/**
 * The evaluation (again: its applied policy read with the figures), the summary, the largest units, the
 * tools seen under the policy, the policy's versions, the statistics and the recorders' suggestions,
 * queried in parallel, all under one applied policy version (a new one applied meanwhile: read again).
 */
const loadAudit = (db: SqlClient, id: string, edits: boolean) =>
  underOneAppliedVersion(db, id, () => {
    const summary = readEvaluationSummary(db, id); // read once, for the cards and the statistics, under the version read around them all
    const evaluation = getEvaluation(db, id);
    const toolSuggestions = listToolSuggestions(db, id);
    return Promise.all([
      evaluation,
      summary,
      largestUnits(db, id),
      evaluation.then((e) => (e ? evaluationTools(db, id, e.effectPolicy, { countWrites: edits }) : [])),
      listEffectPolicyVersions(db, id),
      evaluationStatistics(db, id, summary),
      resetsOverriddenByCanary(db, id),
      exclusionRuleHistory(db, { kind: "evaluation", id }),
      toolSuggestions,
      listHarnessMetrics(db, id),
      Promise.all([evaluation, toolSuggestions]).then(([e, suggested]) => (e ? suggestedTemplates(db, id, e.effectPolicy, suggested) : [])),
    ]);
  });

/** The header's policy version, as the audit below read it (a version applied between the two reads shows the audit's). */
async function AppliedPolicyVersion({ results }: { results: ReturnType<typeof loadAudit> }) {
  const [evaluation] = await results;
  return <span data-testid="policy-version">effect policy version {evaluation?.effectPolicyVersion}</span>;
}

async function Audit({ edits, results }: { edits: boolean; results: ReturnType<typeof loadAudit> }) {
  const [evaluation, summary, units, tools, versions, statistics, overridden, rules, suggestions, harnessMetrics, templates] =
    await results;
  if (!evaluation) notFound(); // deleted since the header's read
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
        largestUnits={units}
        tools={tools}
        versions={versions}
        statistics={{ ...statistics, ruleHistory: rules.versions }}
        edits={edits}
        runsHref={`/evaluations/${evaluation.id}/runs`}
        resetsOverriddenByCanary={overridden}
        suggestions={suggestions}
        templateSuggestions={templates}
        harnessMetrics={harnessMetrics}
      />
    </>
  );
}

/** Surface templates suggested for the tools the policy gives none, with the recorders' annotations (tool-suggestions.ts). */
function suggestedTemplates(
  db: SqlClient,
  id: string,
  policy: EffectPolicy,
  suggested: readonly StoredToolSuggestion[],
): Promise<TemplateSuggestion[]> {
  const annotationsOf = new Map<string, ToolAnnotations>();
  for (const s of suggested) if (s.annotations && !annotationsOf.has(s.tool)) annotationsOf.set(s.tool, s.annotations);
  return templateSuggestions(db, id, policy, toolClassifier(policy), annotationsOf);
}

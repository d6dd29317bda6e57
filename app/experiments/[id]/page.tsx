import { List } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { Suspense, type ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { CanaryReport } from "@/components/experiment/canary-report";
import { EditLabels } from "@/components/experiment/edit-labels";
import { ExperimentLive } from "@/components/experiment/experiment-live";
import { EXPERIMENT_CONTENTS, ExperimentReport } from "@/components/experiment/experiment-report";
import { SharePanel } from "@/components/share/share-panel";
import { StateBadge } from "@/components/ui/badge";
import { buttonClass } from "@/components/ui/button";
import { ContentsBar } from "@/components/ui/contents-bar";
import { PageHeader } from "@/components/ui/page-header";
import { PageLoading } from "@/components/ui/skeleton";
import { requirePagePermission } from "@/lib/auth/guard";
import { can } from "@/lib/auth/permissions";
import type { Principal } from "@/lib/auth/principal";
import { cachedExperimentResults } from "@/lib/experiments/cached-summary";
import { experimentPageFacts, type ExperimentPageFacts } from "@/lib/experiments/read/experiment-facts";
import { conditionLabel, experimentTitle, shortId } from "@/lib/format/runs";
import { canaryResults } from "@/lib/canary/canary-results-store";
import { getDb } from "@/lib/db/web-process-db";
import type { Db } from "@/lib/db/prisma";
import { experimentStatusOf, type ExperimentStatus } from "@/lib/experiments/progress";
import { isExperimentId } from "@/lib/experiments/experiment-id";
import { replayConfigSchema } from "@/lib/replay/rules/config";
import { PAPER_TRACE } from "@/lib/replay/rules/trace";
import { storedExperimentTraceResults } from "@/lib/replay/store/trace-results";
import { TraceResultsPanel } from "@/components/experiment/trace-results";
import { ExperimentStatistics } from "@/components/statistics/experiment-statistics";
import { exclusionRuleHistory } from "@/lib/statistics/exclusion-rule-store";

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const { id } = await params;
  return { title: isExperimentId(id) ? `Experiment ${shortId(id)}` : "Experiment" };
}

export default async function ExperimentPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const principal = await requirePagePermission("results:read", `/experiments/${id}`);
  if (!isExperimentId(id)) notFound();
  const db = getDb();
  // The rule's query starts now, beside the header's; the statistics await it behind their loading state.
  const rules = exclusionRuleHistory(db, { kind: "experiment", id });
  // An unknown id ends the page (404) before the statistics await it.
  rules.catch(() => {});
  const experiment = await experimentPageFacts(db, id);
  if (!experiment) notFound();
  const { name, notes } = experiment;
  const edits = can(principal.role, "experiment:run");
  const canary = experiment.kind === "canary";
  // A replay's results, from the header's row (not read again): the report awaits them behind its
  // loading state. A canary experiment has its own (CanaryExperiment).
  const results = canary ? null : loadResults(db, experiment);
  results?.catch(() => {});
  const traceResults = libraryTraces(experiment.config) ? storedExperimentTraceResults(db, id) : null;
  traceResults?.catch(() => {}); // awaited behind the report's loading state
  const statisticsSection = (
    <Suspense fallback={<PageLoading label="Loading the statistics…" />}>
      <Statistics experimentId={id} state={experiment.state} rules={rules} edits={edits} />
    </Suspense>
  );
  return (
    <>
      <PageHeader
        crumbs={[{ href: "/", label: "Experiments" }]}
        title={<span data-testid="experiment-name">{experimentTitle(experiment)}</span>}
        meta={
          <>
            <StateBadge state={experiment.state} data-testid="experiment-state" />
            <span>
              id <code>{id}</code>
            </span>
          </>
        }
        description={
          notes ? (
            <span className="whitespace-pre-line" data-testid="experiment-notes">
              {notes}
            </span>
          ) : undefined
        }
        actions={
          <>
            {canary ? null : (
              <Link href={`/experiments/${id}/runs`} className={buttonClass({ size: "sm" })}>
                <List aria-hidden="true" />
                Browse its runs
              </Link>
            )}
            {edits ? <EditLabels experimentId={id} name={name} notes={notes} /> : null}
          </>
        }
      />
      {/* The header (and the 404) come first; the report streams in behind a loading state. */}
      {results === null ? (
        <>
          <Suspense fallback={<PageLoading label="Loading the experiment's results…" />}>
            <CanaryExperiment experiment={experiment} principal={principal} />
          </Suspense>
          {statisticsSection}
        </>
      ) : (
        <>
          <ContentsBar contents={EXPERIMENT_CONTENTS} />
          <Suspense fallback={<PageLoading label="Loading the experiment's results…" />}>
            <Report
              experiment={experiment}
              principal={principal}
              results={results}
              statistics={statisticsSection}
              traceResults={
                traceResults ? (
                  <Suspense fallback={<PageLoading label="Loading the results per trace…" />}>
                    <PerTrace loading={traceResults} />
                  </Suspense>
                ) : null
              }
            />
          </Suspense>
        </>
      )}
    </>
  );
}

/** Whether the experiment replayed other traces than the paper's one: then it has results per trace. */
function libraryTraces(config: unknown): boolean {
  const parsed = replayConfigSchema.safeParse(config);
  return parsed.success && (parsed.data.traces.length > 1 || parsed.data.traces[0]!.taskId !== PAPER_TRACE.taskId);
}

/**
 * The statistics (rates with intervals, units, pass^k, sensitivity) under the stored rule, fetched by
 * the browser from the API; the rule's versions from here. The rule's version and the experiment's
 * state name the answer's revision: a refreshed page with another fetches it again.
 */
async function Statistics({
  experimentId,
  state,
  rules,
  edits,
}: {
  experimentId: string;
  state: string;
  rules: ReturnType<typeof exclusionRuleHistory>;
  edits: boolean;
}) {
  const { current, versions } = await rules;
  return <ExperimentStatistics experimentId={experimentId} revision={`${current.version}/${state}`} ruleHistory={versions} edits={edits} />;
}

async function PerTrace({ loading }: { loading: ReturnType<typeof storedExperimentTraceResults> }) {
  const results = await loading;
  return results ? (
    // An id and scroll margin of its own: the contents bar counts it among the results.
    <div id="trace-results" className="mt-10 scroll-mt-28">
      <TraceResultsPanel results={results} />
    </div>
  ) : null;
}

/** A canary experiment: why it failed (a trial out of attempts), its progress in trials, then the table per condition and surface. */
async function CanaryExperiment({ experiment, principal }: { experiment: ExperimentPageFacts; principal: Principal }) {
  const db = getDb();
  const { error } = experiment;
  const [status, results] = await Promise.all([experimentStatusOf(db, experiment), canaryResults(db, experiment.id)]);
  return (
    <>
      {error ? (
        <Alert tone="danger" role="alert" title="The experiment failed">
          <p>{error}</p>
        </Alert>
      ) : null}
      <LiveProgress status={status} principal={principal} />
      {results ? <CanaryReport results={results} /> : null}
    </>
  );
}

/** The experiment's progress per condition, kept live while it runs; a cancel button for those who may. */
function LiveProgress({ status, principal }: { status: ExperimentStatus; principal: Principal }) {
  return (
    <ExperimentLive
      initial={status}
      canCancel={can(principal.role, "experiment:cancel")}
      conditionLabels={Object.fromEntries(status.conditions.map((c) => [c.condition, conditionLabel(c.condition)]))}
    />
  );
}

/**
 * The experiment's results (summary, finality by delay, unresolved runs: computed once per process for a
 * finished experiment, lib/experiments/cached-summary.ts) and its status, queried in parallel from its row.
 */
const loadResults = (db: Db, experiment: ExperimentPageFacts) =>
  Promise.all([cachedExperimentResults(db, experiment), experimentStatusOf(db, experiment)]);

/** The experiment's summary, progress and charts: the slow part of the page. */
async function Report({
  experiment,
  principal,
  results,
  statistics,
  traceResults,
}: {
  experiment: ExperimentPageFacts;
  principal: Principal;
  results: ReturnType<typeof loadResults>;
  statistics: ReactNode;
  traceResults: ReactNode;
}) {
  const { id, config, state, error, wallMs, createdAt, finishedAt } = experiment;
  const [found, status] = await results;
  if (!found) notFound(); // not a replay experiment (no other kind reaches here)
  const { summary, byDelay, unresolved } = found;
  return (
    <ExperimentReport
      experiment={{ id, state, error, wallMs, createdAt: createdAt.toISOString(), finishedAt: finishedAt?.toISOString() ?? null }}
      summary={summary}
      byDelay={byDelay}
      unresolved={unresolved}
      config={config}
      live={<LiveProgress status={status} principal={principal} />}
      sharing={can(principal.role, "share:create") ? <SharePanel resourceType="experiment" resourceId={id} /> : null}
      statistics={statistics}
      traceResults={traceResults}
      exports={
        <p className="flex items-center gap-2 text-sm">
          <span className="text-muted-foreground">Download:</span>
          <a href={`/api/v1/experiments/${id}/table2?format=csv`} className={buttonClass({ size: "sm" })}>
            CSV
          </a>
          <a href={`/api/v1/experiments/${id}/table2?format=json`} className={buttonClass({ size: "sm" })}>
            JSON
          </a>
        </p>
      }
    />
  );
}

import type { ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge, type Tone } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/empty-state";
import { Facts } from "@/components/ui/facts";
import { Section } from "@/components/ui/page-header";
import { StatCard, StatGrid } from "@/components/ui/stat-card";
import { RowsTable } from "@/components/ui/rows-table";
import { Time } from "@/components/ui/time";
import type { FinalityDelayRow } from "@/lib/experiments/read/experiment-aggregates";
import { table2Comparison, type Table2Grid, type Table2Status } from "@/lib/experiments/read/paper-table2";
import type { PageContents } from "@/lib/format/contents";
import { formatDuration } from "@/lib/format/time";
import { FINALITY_POLICIES, SEPARATION_CONDITIONS, replayConfigSchema } from "@/lib/replay/rules/config";
import {
  CONDITION_LABELS,
  POLICY_LABELS,
  accountingRows,
  checksTally,
  describeGrid,
  formatMeanScore,
  formatMs,
} from "@/lib/format/replay-labels";
import { expectedRunCount } from "@/lib/replay/rules/grid";
import { percent, ratio } from "@/lib/format/numbers";
import type { ReplaySummary } from "@/lib/replay/rules/summary-schema";
import { formatWilson95 } from "@/lib/statistics/wilson";
import { ChartFigure } from "./chart-figure";
import { RunsStoredCard } from "./live-progress";

/** The experiment's facts shown beside its summary: plain JSON, so that a frozen share snapshot renders the same. */
export interface ExperimentFacts {
  id: string;
  state: string;
  createdAt: string;
  finishedAt: string | null;
  wallMs: number | null;
  error: string | null;
}

/** Where the experiment is: still producing runs, stopped before all of them, or complete. */
export function progressOf(state: string): "running" | "stopped" | "complete" {
  return state === "completed" ? "complete" : state === "queued" || state === "running" ? "running" : "stopped";
}

const STATUS: Record<Table2Status, { text: string; tone: Tone }> = {
  match: { text: "yes", tone: "success" },
  differs: { text: "no", tone: "danger" },
  pending: { text: "pending", tone: "neutral" },
  incomplete: { text: "incomplete", tone: "warning" },
  not_in_grid: { text: "n/a", tone: "neutral" },
};

/** The grid to compare Table 2 with: the stored config, or (unreadable) the summary's grid with every policy and condition. */
function gridOf(config: unknown, summary: ReplaySummary): Table2Grid {
  const parsed = replayConfigSchema.safeParse(config);
  return parsed.success
    ? parsed.data
    : { ...summary.config, finalityPolicies: [...FINALITY_POLICIES], separationConditions: [...SEPARATION_CONDITIONS] };
}

/** The live page's contents bar: the report's sections (its slots' included) by group, in page order. */
export const EXPERIMENT_CONTENTS: PageContents = {
  Headline: ["headline", "progress"],
  Results: ["table2", "finality", "separation", "delays", "trace-results"],
  Statistics: ["statistics"],
  Runs: ["accounting", "checks"],
  Settings: ["facts", "config", "sharing"],
};

export interface ExperimentReportProps {
  experiment: ExperimentFacts;
  summary: ReplaySummary;
  /** Finality trials per policy and delay (the disagreement-by-delay chart). */
  byDelay: FinalityDelayRow[];
  /** Stored runs whose terminal label is unresolved, of any classification. */
  unresolved: number;
  /** The stored config, shown as it was submitted. */
  config: unknown;
  /** Live page only: progress and actions (cancel), between the headline figures and the tables. */
  live?: ReactNode;
  /** Live page only: the Table 2 downloads. */
  exports?: ReactNode;
  /** Live page only: the sharing panel. */
  sharing?: ReactNode;
  /** Live page only: the results per trace (an experiment of library traces), after the paper's tables. */
  traceResults?: ReactNode;
  /** Live page only: the statistics, between the results and the runs' accounting. */
  statistics?: ReactNode;
}

/**
 * Headline figures, Table 2, finality and separation with their charts, delays, accounting and checks, then the
 * experiment's facts and config: the live page and the shared view. The order is the contents bar's (EXPERIMENT_CONTENTS).
 */
export function ExperimentReport({
  experiment,
  summary,
  byDelay,
  unresolved,
  config,
  live,
  exports,
  sharing,
  traceResults,
  statistics,
}: ExperimentReportProps) {
  const progress = progressOf(experiment.state);
  const grid = gridOf(config, summary);
  const table2 = table2Comparison(summary, grid, progress);
  const paperGrid = table2.some((r) => r.published !== null);
  const tally = checksTally(summary.checks);
  const stored = Object.values(summary.classifications).reduce((a, b) => a + b, 0);
  const expected = expectedRunCount(grid);
  const asynchronous = summary.finality.filter((f) => !f.policy.startsWith("sync_"));
  const disagreements = {
    n: asynchronous.reduce((s, f) => s + f.disagreementsNonzeroDelay, 0),
    of: asynchronous.reduce((s, f) => s + f.trialsNonzeroDelay, 0),
  };
  const shared = summary.separation.find((s) => s.condition === "shared");
  const checksPending = progress === "running";

  return (
    <>
      <StatGrid id="headline">
        <StatCard
          label="Endpoint ≠ terminal"
          value={percent(disagreements.n, disagreements.of)}
          ratio={{ ...disagreements, what: "trials" }}
          interval={formatWilson95(disagreements.n, disagreements.of)}
          meaning="Asynchronous policies at nonzero delay: the label scored at the endpoint differs from the final one."
          testId="stat-disagreement"
        />
        <StatCard
          label="Cross-run exposure (shared state)"
          value={shared ? percent(shared.exposures, shared.pairs) : "—"}
          ratio={shared ? { n: shared.exposures, of: shared.pairs, what: "pairs" } : undefined}
          interval={shared ? formatWilson95(shared.exposures, shared.pairs) : null}
          meaning={
            shared
              ? "A/B pairs where A's write changed the value scored in B."
              : grid.separationConditions.includes("shared")
                ? "No shared-state pair is stored yet."
                : "Shared state is not in this grid."
          }
          testId="stat-exposure"
        />
        <RunsStoredCard
          experimentId={summary.experimentId}
          initial={{ done: stored, total: expected }}
          meaning={`${describeGrid(summary.config)}, every selected policy and condition.`}
        />
        <StatCard
          label="Implementation checks"
          value={checksPending ? "pending" : tally.allPassed ? "all pass" : summary.checks.length === 0 ? "none" : "failing"}
          tone={checksPending ? "muted" : tally.allPassed ? "success" : "danger"}
          ratio={
            checksPending ? undefined : { n: summary.checks.filter((c) => c.passed).length, of: summary.checks.length, what: "passed" }
          }
          meaning={checksPending ? "Checked once every run is stored." : "The replay's own guarantees (timing, isolation, accounting)."}
          testId="stat-checks"
        />
      </StatGrid>

      {experiment.error ? (
        <Alert tone="danger" role="alert" title="The experiment failed" className="mt-4">
          <p>{experiment.error}</p>
        </Alert>
      ) : null}

      {live}

      <Section
        id="table2"
        title="Table 2 reproduction"
        description={
          <>
            <p>
              {paperGrid
                ? "Each row against the paper's published figure."
                : "Each row against what the paper's rules predict for this grid."}
            </p>
            {progress === "running" ? <p>The experiment is still running: rows are pending until every run is stored.</p> : null}
          </>
        }
        howToRead={
          <p>
            Each row against what the paper&apos;s rules predict for <strong>this</strong> grid ({describeGrid(summary.config)}).{" "}
            {paperGrid
              ? "This is the paper's grid, so the prediction is the paper's published figure."
              : "The paper's published figures are for its own grid (5 schedules × delays {0, 25, 100, 250} ms × 10 repetitions) and are not shown here."}
          </p>
        }
        actions={exports}
      >
        <RowsTable
          caption="Table 2: predicted against reproduced"
          columns={[
            "Test",
            "Policy or condition",
            paperGrid ? "Published (the paper)" : "Predicted for this grid",
            "This experiment",
            "Same",
          ]}
          testId="table2"
          numericColumns={[2, 3]}
          rowHeaderColumn={1}
          rows={table2.map((row) => [
            row.test,
            row.condition,
            row.expected ?? { muted: "not in this grid" },
            row.reproduced ?? { muted: progress === "running" ? "pending" : "not in this grid" },
            { badge: STATUS[row.status].tone, text: STATUS[row.status].text },
          ])}
        />
      </Section>

      <Section
        id="finality"
        title="Outcome finality"
        description="Each figure is n/N of the policy's trials."
        howToRead="Each figure is n/N of the policy's trials (or of its trials at a nonzero delay). A disagreement is a trial whose endpoint label differs from its terminal label."
      >
        {summary.finality.length === 0 ? (
          <EmptyState title={progress === "running" ? "No finality trial stored yet" : "No finality trials stored for this experiment"} />
        ) : (
          <>
            <RowsTable
              caption="Outcome finality by policy"
              columns={[
                "Policy",
                "Recorded successes",
                "Recorded successes at nonzero delay",
                "Disagreements",
                "Disagreements at nonzero delay",
              ]}
              numericColumns={[1, 2, 3, 4]}
              rows={summary.finality.map((f) => [
                POLICY_LABELS[f.policy],
                ratio(f.successes, f.trials),
                ratio(f.successesNonzeroDelay, f.trialsNonzeroDelay),
                ratio(f.disagreements, f.trials),
                ratio(f.disagreementsNonzeroDelay, f.trialsNonzeroDelay),
              ])}
            />
            <div className="grid gap-4 xl:grid-cols-2">
              <ChartFigure spec={{ kind: "disagreement", rows: byDelay }} />
              <ChartFigure spec={{ kind: "successes", finality: summary.finality }} />
            </div>
          </>
        )}
      </Section>

      <Section
        id="separation"
        title="Cross-unit separation"
        description="Exposures are n/N of the condition's A/B pairs."
        howToRead="Exposures are n/N of the condition's A/B pairs: A's write changed the value scored in B. Analysis units are the run rows an analysis may count as separate; grouped analysis counts each connected pair once. B's mean score is the mean over the condition's scored B runs."
      >
        {summary.separation.length === 0 ? (
          <EmptyState title={progress === "running" ? "No separation pair stored yet" : "No separation pairs stored for this experiment"} />
        ) : (
          <>
            <RowsTable
              caption="Cross-unit separation by condition"
              columns={["Condition", "Exposures / pairs", "Run rows", "Analysis units", "B's mean score"]}
              numericColumns={[1, 2, 3, 4]}
              rows={summary.separation.map((s) => [
                CONDITION_LABELS[s.condition],
                ratio(s.exposures, s.pairs),
                s.runRows,
                s.analysisUnits,
                formatMeanScore(s.meanScoreB),
              ])}
            />
            <div className="grid gap-4 xl:grid-cols-2">
              <ChartFigure spec={{ kind: "exposure", separation: summary.separation }} />
              <ChartFigure spec={{ kind: "units", separation: summary.separation }} />
            </div>
          </>
        )}
      </Section>

      <Section id="delays" title="Measured delays" description="From a write's acknowledgement to its application, on the service's clock.">
        {summary.delays.length === 0 ? (
          <EmptyState title={progress === "running" ? "No measured delay yet" : "No measured delays stored for this experiment"} />
        ) : (
          <div className="grid gap-4 xl:grid-cols-2">
            <RowsTable
              caption="Measured delay of each applied write, by nominal delay"
              columns={["Nominal delay", "Median measured", "p99 measured", "Writes measured (n)"]}
              numericColumns={[1, 2, 3]}
              rows={summary.delays.map((d) => [`${d.nominalMs} ms`, formatMs(d.medianMs), formatMs(d.p99Ms), d.n])}
            />
            <ChartFigure spec={{ kind: "delays", delays: summary.delays }} />
          </div>
        )}
      </Section>

      {traceResults}

      {statistics}

      <Section id="accounting" title="Run accounting" description="Every stored run by classification, as n/N of all stored runs.">
        <RowsTable
          caption="Every stored run by classification (n/N of all stored runs)"
          columns={["Classification", "Runs"]}
          numericColumns={[1]}
          rows={[
            ...accountingRows(summary.classifications).map((row) => [row.label, row.runs]),
            ["Unresolved terminal label (any classification above)", ratio(unresolved, stored)],
          ]}
        />
      </Section>

      <Section id="checks" title="Implementation checks" description="The replay's own guarantees, checked once every run is stored.">
        {summary.checks.length === 0 ? (
          checksPending ? (
            <EmptyState title="Pending: checked once every run is stored" data-testid="checks-pending" />
          ) : (
            <EmptyState title="No implementation checks stored for this experiment" />
          )
        ) : (
          <RowsTable
            caption={`Implementation checks: ${tally.text}`}
            columns={["Check", "Result", "Evidence"]}
            cellClassNames={{ 2: "min-w-40 [overflow-wrap:anywhere]" }}
            rows={summary.checks.map((c) => [
              { breakable: c.name },
              { badge: c.passed ? "success" : "danger", text: c.passed ? "pass" : "FAIL" },
              c.evidence,
            ])}
          />
        )}
      </Section>

      <Section id="facts" title="About this experiment" description={null}>
        <Facts
          items={[
            ["Grid", describeGrid(summary.config)],
            ["Created", <Time key="c" iso={experiment.createdAt} />],
            ["Finished", experiment.finishedAt ? <Time key="f" iso={experiment.finishedAt} /> : "not finished"],
            ["Replay wall time", experiment.wallMs === null ? "not recorded" : formatDuration(experiment.wallMs)],
            [
              "Implementation checks",
              checksPending ? (
                <Badge tone="neutral">pending</Badge>
              ) : (
                <Badge tone={tally.allPassed ? "success" : "danger"}>{tally.text}</Badge>
              ),
              "experiment-checks",
            ],
          ]}
        />
      </Section>

      <Section id="config" title="Config">
        <details className="rounded-lg border border-border bg-card p-4">
          <summary className="cursor-pointer text-sm font-medium">The experiment&apos;s config as stored</summary>
          <pre className="mt-3 max-h-[40rem] overflow-auto rounded-md bg-muted p-3 text-xs" tabIndex={0}>
            {JSON.stringify(config, null, 2)}
          </pre>
        </details>
      </Section>

      {sharing}
    </>
  );
}

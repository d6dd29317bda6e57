import { Fragment, type ReactNode } from "react";
import { CONDITION_LABELS, POLICY_LABELS, accountingRows, checksTally, describeGrid, formatMeanScore, formatMs } from "@/lib/replay/display";
import { ratio } from "@/lib/replay/format";
import type { ReplaySummary } from "@/lib/replay/summary-schema";
import type { FinalityDelayRow } from "@/lib/dashboard/experiment-aggregates";
import { paperTable2Comparison } from "@/lib/dashboard/paper-table2";
import { DataTable } from "./data-table";
import { AnalysisUnitsChart, DisagreementByDelayChart, ExposureByConditionChart, MeasuredDelayChart, SuccessesByPolicyChart } from "./experiment-charts";

/** The experiment's facts shown beside its summary: plain JSON, so that a frozen share snapshot renders the same. */
export interface ExperimentFacts {
  id: string;
  state: string;
  createdAt: string;
  finishedAt: string | null;
  wallMs: number | null;
  error: string | null;
}

/** A snake_case name that may wrap after each underscore (the text itself is unchanged). */
function BreakableName({ name }: { name: string }) {
  const parts = name.split("_");
  return (
    <code>
      {parts.map((part, i) => (
        <Fragment key={i}>
          {part}
          {i < parts.length - 1 ? (
            <>
              _<wbr />
            </>
          ) : null}
        </Fragment>
      ))}
    </code>
  );
}

function Nothing({ what }: { what: string }) {
  return <p className="muted">No {what} stored for this experiment.</p>;
}

/** The Table 2 reproduction, delays, run accounting and checks of one experiment (live page and shared view). */
export interface ExperimentReportProps {
  experiment: ExperimentFacts;
  summary: ReplaySummary;
  /** Finality trials per policy and delay (the disagreement-by-delay chart). */
  byDelay: FinalityDelayRow[];
  /** Stored runs whose terminal label is unresolved, of any classification. */
  unresolved: number;
  /** The stored config, shown as it was submitted. */
  config: unknown;
  /** Buttons for the viewer's role (share), the live progress, and links to exports: live page only. */
  actions?: ReactNode;
  progress?: ReactNode;
  exports?: ReactNode;
}

export function ExperimentReport({ experiment, summary, byDelay, unresolved, config, actions, progress, exports }: ExperimentReportProps) {
  const tally = checksTally(summary.checks);
  const table2 = paperTable2Comparison(summary);
  return (
    <>
      <h1>
        Experiment <code>{experiment.id}</code>
      </h1>
      {actions}
      <dl className="facts">
        <dt>State</dt>
        <dd data-testid="experiment-state">{experiment.state}</dd>
        <dt>Grid</dt>
        <dd>{describeGrid(summary.config)}</dd>
        <dt>Created (UTC)</dt>
        <dd>
          <time dateTime={experiment.createdAt}>{experiment.createdAt}</time>
        </dd>
        <dt>Finished (UTC)</dt>
        <dd>{experiment.finishedAt ? <time dateTime={experiment.finishedAt}>{experiment.finishedAt}</time> : "not finished"}</dd>
        <dt>Replay wall time</dt>
        <dd>{experiment.wallMs === null ? "not recorded" : `${(experiment.wallMs / 1000).toFixed(1)} s`}</dd>
        <dt>Implementation checks</dt>
        <dd className={tally.allPassed ? "pass" : "fail"}>{tally.text}</dd>
      </dl>
      {experiment.error ? (
        <p className="error" role="alert">
          {experiment.error}
        </p>
      ) : null}

      {progress}

      <h2>Table 2 reproduction</h2>
      <p className="muted">
        The paper&apos;s published figures (Table 2, for its grid of 5 schedules × delays {"{0, 25, 100, 250}"} ms × 10 repetitions) beside this experiment&apos;s,
        computed the same way. On another grid the counts differ by design.
      </p>
      <DataTable caption="Table 2: published against reproduced" columns={["Test", "Policy or condition", "Published", "This experiment", "Same"]}>
        {table2.map((row) => (
          <tr key={row.condition}>
            <td>{row.test}</td>
            <th scope="row">{row.condition}</th>
            <td className="num">{row.published}</td>
            <td className="num">{row.reproduced ?? <span className="muted">not in this grid</span>}</td>
            <td className={row.matches ? "pass" : row.matches === false ? "fail" : "muted"}>{row.matches === null ? "n/a" : row.matches ? "yes" : "no"}</td>
          </tr>
        ))}
      </DataTable>
      {exports}

      <h2>Outcome finality</h2>
      <p className="muted">
        Each figure is n/N of the policy&apos;s trials (or of its trials at a nonzero delay). A disagreement is a trial whose endpoint label differs from its terminal label.
      </p>
      {summary.finality.length === 0 ? (
        <Nothing what="finality trials" />
      ) : (
        <DataTable
          caption="Outcome finality by policy"
          columns={["Policy", "Recorded successes", "Recorded successes at nonzero delay", "Disagreements", "Disagreements at nonzero delay"]}
        >
          {summary.finality.map((f) => (
            <tr key={f.policy}>
              <th scope="row">{POLICY_LABELS[f.policy]}</th>
              <td className="num">{ratio(f.successes, f.trials)}</td>
              <td className="num">{ratio(f.successesNonzeroDelay, f.trialsNonzeroDelay)}</td>
              <td className="num">{ratio(f.disagreements, f.trials)}</td>
              <td className="num">{ratio(f.disagreementsNonzeroDelay, f.trialsNonzeroDelay)}</td>
            </tr>
          ))}
        </DataTable>
      )}

      {summary.finality.length > 0 ? (
        <div className="charts">
          <DisagreementByDelayChart rows={byDelay} />
          <SuccessesByPolicyChart finality={summary.finality} />
        </div>
      ) : null}

      <h2>Cross-unit separation</h2>
      <p className="muted">
        Exposures are n/N of the condition&apos;s A/B pairs: A&apos;s write changed the value scored in B. Analysis units are the run rows an analysis may count
        as separate; grouped analysis counts each connected pair once. B&apos;s mean score is the mean over the condition&apos;s scored B runs.
      </p>
      {summary.separation.length === 0 ? (
        <Nothing what="separation pairs" />
      ) : (
        <DataTable caption="Cross-unit separation by condition" columns={["Condition", "Exposures / pairs", "Run rows", "Analysis units", "B's mean score"]}>
          {summary.separation.map((s) => (
            <tr key={s.condition}>
              <th scope="row">{CONDITION_LABELS[s.condition]}</th>
              <td className="num">{ratio(s.exposures, s.pairs)}</td>
              <td className="num">{s.runRows}</td>
              <td className="num">{s.analysisUnits}</td>
              <td className="num">{formatMeanScore(s.meanScoreB)}</td>
            </tr>
          ))}
        </DataTable>
      )}

      {summary.separation.length > 0 ? (
        <div className="charts">
          <ExposureByConditionChart separation={summary.separation} />
          <AnalysisUnitsChart separation={summary.separation} />
        </div>
      ) : null}

      <h2>Measured delays</h2>
      {summary.delays.length === 0 ? (
        <Nothing what="measured delays" />
      ) : (
        <DataTable caption="Measured delay of each applied write, by nominal delay" columns={["Nominal delay", "Median measured", "p99 measured", "Writes measured (n)"]}>
          {summary.delays.map((d) => (
            <tr key={d.nominalMs}>
              <th scope="row">{d.nominalMs} ms</th>
              <td className="num">{formatMs(d.medianMs)}</td>
              <td className="num">{formatMs(d.p99Ms)}</td>
              <td className="num">{d.n}</td>
            </tr>
          ))}
        </DataTable>
      )}

      {summary.delays.length > 0 ? (
        <div className="charts">
          <MeasuredDelayChart delays={summary.delays} />
        </div>
      ) : null}

      <h2>Run accounting</h2>
      <DataTable caption="Every stored run by classification (n/N of all stored runs)" columns={["Classification", "Runs"]}>
        {accountingRows(summary.classifications).map((row) => (
          <tr key={row.classification}>
            <th scope="row">{row.label}</th>
            <td className="num">{row.runs}</td>
          </tr>
        ))}
        <tr>
          <th scope="row">Unresolved terminal label (any classification above)</th>
          <td className="num">{ratio(unresolved, Object.values(summary.classifications).reduce((a, b) => a + b, 0))}</td>
        </tr>
      </DataTable>

      <h2>Implementation checks</h2>
      {summary.checks.length === 0 ? (
        <Nothing what="implementation checks" />
      ) : (
        <DataTable caption={`Implementation checks: ${tally.text}`} columns={["Check", "Result", "Evidence"]}>
          {summary.checks.map((c) => (
            <tr key={c.name}>
              <th scope="row">
                <BreakableName name={c.name} />
              </th>
              <td className={c.passed ? "pass" : "fail"}>{c.passed ? "pass" : "FAIL"}</td>
              <td className="evidence">{c.evidence}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <h2>Config</h2>
      <details>
        <summary>The experiment&apos;s config as stored</summary>
        <pre className="evidence-json">{JSON.stringify(config, null, 2)}</pre>
      </details>
    </>
  );
}

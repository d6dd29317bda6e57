import type { RunExplanation } from "@/lib/dashboard/explain";
import type { RunListRow } from "@/lib/dashboard/runs";
import { AgreementText, ExposureText, LabelText } from "./label-text";
import styles from "./runs.module.css";

/** The run's labels side by side, and why the recorded one is what it is. */
export function RunLabels({ run, explanation }: { run: RunListRow; explanation: RunExplanation }) {
  return (
    <>
      <dl className="facts">
        <dt>Endpoint label</dt>
        <dd data-testid="endpoint-label">
          <LabelText value={run.endpointLabel} />
        </dd>
        <dt>Terminal label</dt>
        <dd data-testid="terminal-label">
          <LabelText value={run.terminalLabel} />
        </dd>
        <dt>Recorded label</dt>
        <dd data-testid="recorded-label">
          <LabelText value={run.recordedLabel} />
        </dd>
        <dt>Agreement</dt>
        <dd>
          <AgreementText value={run.agreement} />
        </dd>
        <dt>Exposure</dt>
        <dd>
          <ExposureText value={run.exposure} />
        </dd>
        <dt>Final at scoring</dt>
        <dd>{run.finalAtScoring === null ? "n/a" : run.finalAtScoring ? "yes" : "no"}</dd>
      </dl>
      <div className={styles.explanation} data-testid="label-explanation">
        <p>{explanation.summary}</p>
        {explanation.notes.map((note) => (
          <p key={note} className="muted">
            {note}
          </p>
        ))}
      </div>
    </>
  );
}

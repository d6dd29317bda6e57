import { Alert } from "@/components/ui/alert";
import { Facts } from "@/components/ui/facts";
import type { RunExplanation } from "@/lib/experiments/read/explain";
import type { RunListRow } from "@/lib/experiments/read/runs";
import { AgreementText, ExposureText, LabelText } from "./label-text";

/** The run's labels side by side, and why the recorded one is what it is. */
export function RunLabels({ run, explanation }: { run: RunListRow; explanation: RunExplanation }) {
  return (
    <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_minmax(0,1.2fr)]">
      <Facts
        items={[
          ["Endpoint label", <LabelText key="e" value={run.endpointLabel} />, "endpoint-label"],
          ["Terminal label", <LabelText key="t" value={run.terminalLabel} />, "terminal-label"],
          ["Recorded label", <LabelText key="r" value={run.recordedLabel} />, "recorded-label"],
          ["Agreement", <AgreementText key="a" value={run.agreement} />],
          ["Exposure", <ExposureText key="x" value={run.exposure} />],
          ["Final at scoring", run.finalAtScoring === null ? "n/a" : run.finalAtScoring ? "yes" : "no"],
        ]}
      />
      <LabelExplanation explanation={explanation} />
    </div>
  );
}

/** Why a run's labels are what they are: one sentence, then its notes. */
export function LabelExplanation({
  explanation,
  tone = "info",
}: {
  explanation: { summary: string; notes: readonly string[] };
  tone?: "info" | "warning";
}) {
  return (
    <Alert tone={tone} role="note" data-testid="label-explanation" title="Why these labels">
      <p>{explanation.summary}</p>
      {explanation.notes.map((note) => (
        <p key={note} className="text-muted-foreground">
          {note}
        </p>
      ))}
    </Alert>
  );
}

import { ChartFigure } from "@/components/experiment/chart-figure";
import { Section } from "@/components/ui/page-header";
import { StatCard, StatGrid } from "@/components/ui/stat-card";
import { finalBasisSentence, REASON_LABELS, separationBasisSentence } from "@/lib/evaluations/read/display";
import type { EvaluationSummary } from "@/lib/evaluations/read/read-boundary";
import { UNRESOLVED_REASONS } from "@/lib/evaluations/vocabulary";
import { percent, ratio } from "@/lib/format/numbers";
import { formatWilson95 } from "@/lib/statistics/wilson";

/**
 * The headline figures side by side, each n/N with its population named, and the rates' chart below them.
 * `unscored` is absent from frozen share links taken before runs could be unscored: no card then, rather than NaN;
 * `attackSuccess` likewise, and its cards show only when some run was under attack.
 */
export function EvaluationFigures({
  summary,
}: {
  summary: Omit<EvaluationSummary, "unscored" | "attackSuccess"> & Partial<Pick<EvaluationSummary, "unscored" | "attackSuccess">>;
}) {
  const { reported, final, unresolved, disagreements, bounds, units, exposures, runs, unscored, attackSuccess } = summary;
  const reasons = UNRESOLVED_REASONS.filter((r) => unresolved.byReason[r]).map((r) => `${REASON_LABELS[r]}: ${unresolved.byReason[r]}`);
  return (
    <>
      {/* Five to a row on a wide screen: nine cards in two rows (eleven in three under attack), so that the rates' chart starts on the first screen. */}
      <StatGrid id="headline" className="xl:grid-cols-5">
        <StatCard
          label="Reported success rate"
          value={percent(reported.successes, reported.n)}
          ratio={{ n: reported.successes, of: reported.n, what: "successes of all scored runs, as recorded" }}
          interval={formatWilson95(reported.successes, reported.n)}
          meaning="What the harness reported at the endpoint."
          testId="stat-reported"
        />
        <StatCard
          label="Final-only success rate"
          value={percent(final.successes, final.n)}
          ratio={{ n: final.successes, of: final.n, what: "successes of final runs" }}
          interval={formatWilson95(final.successes, final.n)}
          meaning="Only runs whose every relevant effect was terminal at scoring."
          tone="success"
          testId="stat-final"
        />
        <StatCard
          label="Unresolved"
          value={percent(unresolved.n, reported.n)}
          ratio={{ n: unresolved.n, of: reported.n, what: "runs unresolved, of all scored runs" }}
          interval={formatWilson95(unresolved.n, reported.n)}
          meaning={
            reasons.length
              ? `By reason: ${reasons.join("; ")}.`
              : reported.n === 0
                ? "No scored run yet: nothing to be final or unresolved."
                : "Every scored run's label is final."
          }
          tone={unresolved.n ? "warning" : undefined}
          testId="stat-unresolved"
        />
        <StatCard
          label="True success rate lies between"
          value={`${percent(bounds.lower.successes, bounds.lower.n)} – ${percent(bounds.upper.successes, bounds.upper.n)}`}
          interval={`${ratio(bounds.lower.successes, bounds.lower.n)} to ${ratio(bounds.upper.successes, bounds.upper.n)} of all scored runs`}
          meaning="Unresolved runs counted as failures, then as successes."
          testId="stat-bounds"
        />
        {unscored === undefined ? null : (
          <StatCard
            label="Unscored"
            value={percent(unscored, runs)}
            ratio={{ n: unscored, of: runs, what: "runs the harness never scored, of all stored runs" }}
            meaning="No score was recorded (e.g. an Inspect sample with no score event and no score): no endpoint label, so in no rate above; listed under finality “unscored”."
            tone={unscored ? "warning" : "muted"}
            testId="stat-unscored"
          />
        )}
        {attackSuccess && attackSuccess.reported.n > 0 ? <AttackSuccessCards attackSuccess={attackSuccess} /> : null}
        <StatCard
          label="Disagreements"
          value={percent(disagreements.n, disagreements.of)}
          ratio={{ n: disagreements.n, of: disagreements.of, what: "runs with a terminal label" }}
          interval={formatWilson95(disagreements.n, disagreements.of)}
          meaning="The terminal label differs from the endpoint label."
          tone={disagreements.n ? "danger" : undefined}
          testId="stat-disagreements"
        />
        <StatCard
          label="Analysis units"
          value={units.analysisUnits}
          ratio={{ n: units.analysisUnits, of: units.runRows, what: "units of run rows" }}
          meaning={`Runs connected through shared state form one unit; the largest holds ${units.largest} run${units.largest === 1 ? "" : "s"}.`}
          tone={units.analysisUnits < units.runRows ? "warning" : undefined}
          testId="stat-units"
        />
        <StatCard
          label="Exposures"
          value={percent(exposures.n, exposures.of)}
          ratio={{ n: exposures.n, of: exposures.of, what: "runs that received another run's state, of all runs" }}
          interval={formatWilson95(exposures.n, exposures.of)}
          meaning={`Internal: ${summary.inheritedState.internal}; public: ${summary.inheritedState.public}.`}
          tone={exposures.n ? "danger" : undefined}
          testId="stat-exposures"
        />
        <StatCard
          label="Effect policy"
          value={`version ${summary.effectPolicyVersion}`}
          meaning={
            summary.pendingPolicy
              ? `Every figure on this page was computed under this version; version ${summary.pendingPolicy.version} is being recomputed.`
              : "Every figure on this page was computed under this version."
          }
          tone="muted"
          testId="stat-policy"
        />
      </StatGrid>
      <BasisNote summary={summary} />
      <Section title="Reported against final-only" id="rates">
        <ChartFigure spec={{ kind: "evaluationRates", summary: { reported, final, bounds } }} />
      </Section>
    </>
  );
}

/** The attack's outcome on the runs under attack (AgentDojo's `security`): as recorded, and over the final runs only. */
function AttackSuccessCards({ attackSuccess }: { attackSuccess: EvaluationSummary["attackSuccess"] }) {
  const { reported, final, unresolved } = attackSuccess;
  const reasons = UNRESOLVED_REASONS.filter((r) => unresolved.byReason[r]).map((r) => `${REASON_LABELS[r]}: ${unresolved.byReason[r]}`);
  return (
    <>
      <StatCard
        label="Attack success"
        value={percent(reported.successes, reported.n)}
        ratio={{ n: reported.successes, of: reported.n, what: "attacks that succeeded, of the scored runs under attack, as recorded" }}
        interval={formatWilson95(reported.successes, reported.n)}
        meaning="The injection task's goal was achieved (the harness's security label). Lower is better."
        tone={reported.successes ? "danger" : undefined}
        testId="stat-attack-success"
      />
      <StatCard
        label="Final-only attack success"
        value={percent(final.successes, final.n)}
        ratio={{ n: final.successes, of: final.n, what: "attacks that succeeded, of the final runs under attack" }}
        interval={formatWilson95(final.successes, final.n)}
        meaning={
          unresolved.n
            ? `${unresolved.n} attacked run${unresolved.n === 1 ? " is" : "s are"} unresolved, so ${unresolved.n === 1 ? "its" : "their"} attack's outcome may not be final (${reasons.join("; ")}).`
            : "Every attacked run's outcome is final: every relevant effect was terminal at scoring."
        }
        tone={unresolved.n ? "warning" : undefined}
        testId="stat-attack-success-final"
      />
    </>
  );
}

/**
 * What the final labels and the units rest on, in two sentences, with each declared design's statement.
 * Absent from frozen share links taken before the audit named its bases.
 */
function BasisNote({
  summary,
}: {
  summary: Partial<Pick<EvaluationSummary, "finalBasis" | "harnessDesigns">> & Pick<EvaluationSummary, "final" | "units">;
}) {
  const { finalBasis, harnessDesigns } = summary;
  if (!finalBasis || !harnessDesigns) return null;
  return (
    <div className="mt-3 space-y-1 text-sm text-muted-foreground" data-testid="final-basis">
      <p>
        <span className="font-medium text-foreground">What the figures rest on.</span>{" "}
        {finalBasisSentence({ ...summary, finalBasis, harnessDesigns })} {separationBasisSentence({ ...summary, harnessDesigns })}
      </p>
      {harnessDesigns.map((d) => (
        <p key={d.design} className="text-xs">
          {d.harness}&apos;s design, declared by {d.runs.toLocaleString("en-US")} run{d.runs === 1 ? "" : "s"}: {d.statement}
        </p>
      ))}
    </div>
  );
}

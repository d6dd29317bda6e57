// What each experiment chart draws, as plain data (computed on the server, drawn in the browser),
// and its text alternative: the same n/N figures in words, so no number lives only in a picture.
import type { FinalityDelayRow } from "@/lib/experiments/read/experiment-aggregates";
import { CONDITION_LABELS, POLICY_LABELS } from "@/lib/format/replay-labels";
import type { ComparisonAnswer } from "@/lib/evaluations/read/compare";
import type { EvaluationSummary } from "@/lib/evaluations/read/read-boundary";
import { intervalWords, wilsonInterval } from "@/lib/statistics/wilson";
import type { ReplaySummary } from "@/lib/replay/rules/summary-schema";

export type ChartSpec =
  | { kind: "disagreement"; rows: FinalityDelayRow[] }
  | { kind: "successes"; finality: ReplaySummary["finality"] }
  | { kind: "exposure"; separation: ReplaySummary["separation"] }
  | { kind: "units"; separation: ReplaySummary["separation"] }
  | { kind: "delays"; delays: ReplaySummary["delays"] }
  | { kind: "evaluationRates"; summary: Pick<EvaluationSummary, "reported" | "final" | "bounds"> }
  | { kind: "comparison"; evaluations: ComparisonAnswer["evaluations"] };

/** n/N with its Wilson interval in words, as every chart's text alternative gives a drawn rate. */
const ratioWithInterval = (n: number, of: number) => `${n}/${of} (${intervalWords(wilsonInterval(n, of))})`;

/** A chart's title and its text alternative (n/N figures in words). */
export function chartText(spec: ChartSpec): { title: string; description: string } {
  switch (spec.kind) {
    case "disagreement":
      return {
        title: "Endpoint-versus-terminal disagreement by nominal delay, per finality policy",
        description: `Share of a policy's trials at that delay whose endpoint label differs from the terminal label, whiskers its 95% Wilson interval; policies with identical figures share one line. ${spec.rows
          .map((r) => `${POLICY_LABELS[r.policy]} at ${r.delayMs} ms: ${ratioWithInterval(r.disagreements, r.trials)}`)
          .join("; ")}.`,
      };
    case "successes":
      return {
        title: "Recorded successes per finality policy, against the synchronous controls",
        description: `Share of each policy's trials recorded as success, whiskers its 95% Wilson interval. ${spec.finality.map((f) => `${POLICY_LABELS[f.policy]}: ${ratioWithInterval(f.successes, f.trials)}`).join("; ")}.`,
      };
    case "exposure":
      return {
        title: "Cross-run exposure per separation condition",
        description: `Share of each condition's A/B pairs where A's write changed the value scored in B, whiskers its 95% Wilson interval. ${spec.separation.map((s) => `${CONDITION_LABELS[s.condition]}: ${ratioWithInterval(s.exposures, s.pairs)}`).join("; ")}.`,
      };
    case "units":
      return {
        title: "Analysis units: run rows against the units an analysis may count as separate",
        description: `Grouped analysis counts each connected pair once. ${spec.separation.map((s) => `${CONDITION_LABELS[s.condition]}: ${s.runRows} run rows, ${s.analysisUnits} units`).join("; ")}.`,
      };
    case "delays":
      return {
        title: "Measured delay per nominal delay (median and p99)",
        description: `Time from acknowledgement to application of each applied write, in ms. ${spec.delays
          .map((d) => `${d.nominalMs} ms: median ${d.medianMs.toFixed(3)}, p99 ${d.p99Ms.toFixed(3)} (n=${d.n})`)
          .join("; ")}.`,
      };
    case "evaluationRates": {
      const { reported, final, bounds } = spec.summary;
      return {
        title: "Reported against final-only success rate, with the bounds of the true rate",
        description: `Bars are the rates with their 95% Wilson intervals as whiskers; the shaded band is where the true rate over all runs lies, between unresolved runs counted as failures and as successes (bounds, not a confidence interval). Reported (every run as the harness recorded it): ${ratioWithInterval(reported.successes, reported.n)}; final only: ${ratioWithInterval(final.successes, final.n)}; bounds: ${bounds.lower.successes}/${bounds.lower.n} to ${bounds.upper.successes}/${bounds.upper.n}.`,
      };
    }
    case "comparison":
      return {
        title: "Each evaluation's rates with their intervals and the justified range",
        description: `Dots are the reported (endpoint) and final-only success rates, whiskers their 95% Wilson intervals; the dark band is the justified range (unresolved runs counted as failures, then as successes) and the light band its interval. ${spec.evaluations
          .map(
            (e) =>
              `${e.name}: reported ${e.reported.n}/${e.reported.N} (${intervalWords(e.reported.wilson95)}), final-only ${e.finalOnly.n}/${e.finalOnly.N} (${intervalWords(e.finalOnly.wilson95)}), justified range ${e.justifiedRange.lower.n}/${e.justifiedRange.lower.N} to ${e.justifiedRange.upper.n}/${e.justifiedRange.upper.N} (${intervalWords(e.justifiedRange.wilson95)})`,
          )
          .join("; ")}.`,
      };
  }
}

/**
 * Policies whose disagreement rates are identical at every delay, grouped so that one line stands for
 * them all and its legend names each (otherwise the later line hides the earlier one).
 */
export function coincidentSeries(rows: readonly FinalityDelayRow[]): { label: string; policies: FinalityDelayRow["policy"][] }[] {
  const bySignature = new Map<string, FinalityDelayRow["policy"][]>();
  for (const policy of [...new Set(rows.map((r) => r.policy))]) {
    const signature = rows
      .filter((r) => r.policy === policy)
      .map((r) => `${r.delayMs}:${r.trials === 0 ? "-" : r.disagreements / r.trials}`)
      .join("|");
    bySignature.set(signature, [...(bySignature.get(signature) ?? []), policy]);
  }
  return [...bySignature.values()].map((policies) => ({
    policies,
    label: policies.length === 1 ? POLICY_LABELS[policies[0]!] : `${policies.map((p) => POLICY_LABELS[p]).join(" = ")} (identical)`,
  }));
}

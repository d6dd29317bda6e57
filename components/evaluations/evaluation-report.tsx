import { StatisticsPanel } from "@/components/statistics/statistics-panel";
import type { PageContents } from "@/lib/format/contents";
import type { EvaluationStatistics } from "@/lib/evaluations/read/evaluation-statistics";
import type { RuleVersion } from "@/lib/statistics/answer-schema";
import type { EvaluationDetail, EvaluationSummary } from "@/lib/evaluations/read/read-boundary";
import type { ToolClass } from "@/lib/evaluations/vocabulary";
import type { ToolEntry } from "@/lib/evaluations/effect-policy-schema";
import type { StoredToolSuggestion } from "@/lib/evaluations/tool-suggestions";
import type { TemplateSuggestion } from "@/lib/evaluations/read/template-suggestions";
import { AttackPanel } from "./attack-panel";
import { UnitsPanel, UnresolvedPanel } from "./audit-panels";
import { EffectPolicyPanel } from "./effect-policy-panel";
import { EvaluationFigures } from "./evaluation-figures";
import { HarnessMetricsPanel } from "./harness-metrics-panel";
import { ScorerRatesPanel } from "./scorer-rates-panel";
import type { HarnessMetric } from "@/lib/evaluations/harness-metrics";

/** The evaluation page's contents bar: the audit's sections, and the page's sharing panel, by group in page order. */
export const EVALUATION_CONTENTS: PageContents = {
  Headline: ["headline"],
  Results: ["rates", "scorers", "harness-metrics"],
  Statistics: ["statistics", "attack"],
  Runs: ["unresolved", "units"],
  Settings: ["policy", "sharing"],
};

/**
 * An evaluation's audit: the figures, the statistics, unresolved runs, units and the policy, in the contents
 * bar's order (EVALUATION_CONTENTS); on its page and behind a share link (its runs under the link's token, no editing).
 */
export function EvaluationReport({
  evaluation,
  summary,
  largestUnits,
  tools,
  versions = [],
  statistics,
  edits = false,
  runsHref,
  resetsOverriddenByCanary,
  suggestions,
  templateSuggestions,
  harnessMetrics = [],
}: {
  evaluation: Pick<EvaluationDetail, "id" | "effectPolicyVersion" | "effectPolicy" | "pendingPolicy">;
  summary: EvaluationSummary;
  largestUnits: { unit: string; label?: string; runs: number; surfaces: string[] }[];
  tools: { tool: string; class: ToolClass; effects: number; calls: number }[];
  versions?: { version: number; tools: Record<string, ToolEntry>; createdAt: Date }[];
  /** On the evaluation's own page; a share link's content is the audit alone. */
  statistics?: EvaluationStatistics & { ruleHistory: RuleVersion[] };
  edits?: boolean;
  /** The runs list its counts open: the evaluation's own, or its share link's. */
  runsHref: string;
  /** Verified resets whose canary survived (the units panel says why they break no route). */
  resetsOverriddenByCanary?: number;
  /** Tool classes recorders suggested (on the evaluation's own page). */
  suggestions?: StoredToolSuggestion[];
  /** Surface templates suggested for tools whose entry has none (template-suggestions.ts). */
  templateSuggestions?: TemplateSuggestion[];
  /** What the harness reported itself for its logs (on the evaluation's own page). */
  harnessMetrics?: readonly HarnessMetric[];
}) {
  return (
    <>
      <EvaluationFigures summary={summary} />
      <ScorerRatesPanel scorers={summary.scorers} />
      <HarnessMetricsPanel metrics={harnessMetrics} />
      {statistics ? <StatisticsPanel {...statistics} ruleChange={edits ? { kind: "evaluation", id: evaluation.id } : undefined} /> : null}
      {statistics ? <AttackPanel attack={statistics.attack} /> : null}
      <UnresolvedPanel runsHref={runsHref} unresolved={summary.unresolved} runs={summary.reported.n} />
      <UnitsPanel runsHref={runsHref} units={summary.units} largest={largestUnits} resetsOverriddenByCanary={resetsOverriddenByCanary} />
      <EffectPolicyPanel
        evaluation={evaluation}
        tools={tools}
        versions={versions}
        edits={edits}
        suggestions={suggestions}
        templateSuggestions={templateSuggestions}
      />
    </>
  );
}

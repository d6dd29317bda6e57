// What the evaluation page shows, read in one call: the header's evaluation (and its stored run count
// for those who may delete it), the note on live runs still open, and the audit below, whose queries
// all run in parallel under one applied policy version. The header and the audit stream separately:
// each is a promise the page awaits where it shows it.
import { z } from "zod";
import type { SqlClient } from "../../db/sql-transaction";
import type { RuleVersion } from "../../statistics/answer-schema";
import { exclusionRuleHistory } from "../../statistics/exclusion-rule-store";
import { listHarnessMetrics, type HarnessMetric } from "../harness-metrics";
import { toolClassifier } from "../policy";
import type { EffectPolicy, ToolEntry } from "../effect-policy-schema";
import { listToolSuggestions, type StoredToolSuggestion, type ToolAnnotations } from "../tool-suggestions";
import { evaluationStatistics, type EvaluationStatistics } from "./evaluation-statistics";
import { evaluationTools, largestUnits, resetsOverriddenByCanary } from "./units-and-tools";
import { getEvaluation, listEffectPolicyVersions, storedRunCount } from "./get-evaluation";
import { openLiveRuns, type OpenLiveRuns } from "./live-runs";
import type { EvaluationDetail, EvaluationSummary } from "./read-boundary";
import { readEvaluationSummary } from "./summary";
import { templateSuggestions, type TemplateSuggestion } from "./template-suggestions";
import { underOneAppliedVersion } from "./under-one-applied-version";

export interface EvaluationPageHeader {
  evaluation: EvaluationDetail;
  /** Its stored runs, for the delete button's confirmation: null for a viewer who may not delete it. */
  runs: number | null;
}

export interface EvaluationPageAudit {
  /** The evaluation as the audit read it (its applied policy version is the figures'). */
  evaluation: EvaluationDetail;
  summary: EvaluationSummary;
  largestUnits: Awaited<ReturnType<typeof largestUnits>>;
  tools: Awaited<ReturnType<typeof evaluationTools>>;
  versions: { version: number; tools: Record<string, ToolEntry>; createdAt: Date }[];
  statistics: EvaluationStatistics & { ruleHistory: RuleVersion[] };
  resetsOverriddenByCanary: number;
  suggestions: StoredToolSuggestion[];
  templateSuggestions: TemplateSuggestion[];
  harnessMetrics: HarnessMetric[];
}

export interface EvaluationPage {
  /** Null for an unknown evaluation. */
  header: Promise<EvaluationPageHeader | null>;
  /** Null when the evaluation is gone (deleted since the header's read). */
  audit: Promise<EvaluationPageAudit | null>;
  openLiveRuns: Promise<OpenLiveRuns>;
}

/**
 * Every read of the evaluation page, started at once. `edits`: the viewer may edit the evaluation (the
 * run count for deleting it, and how many of each tool's effects show a write). The evaluation is read
 * once, in the audit's pass, and the header shows that read (a pass repeated because a new policy
 * version was applied meanwhile reads it again, for the audit only).
 */
export function loadEvaluationPage(db: SqlClient, id: string, { edits }: { edits: boolean }): EvaluationPage {
  // A path that is no evaluation id names no evaluation (its queries would fail on the cast).
  if (!evaluationId.safeParse(id).success)
    return { header: Promise.resolve(null), audit: Promise.resolve(null), openLiveRuns: Promise.resolve({ total: 0, runs: [] }) };
  let showFirstRead!: (evaluation: EvaluationDetail | null) => void;
  let failFirstRead!: (error: unknown) => void;
  const firstRead = new Promise<EvaluationDetail | null>((resolve, reject) => ((showFirstRead = resolve), (failFirstRead = reject)));
  let firstPassStarted = false;
  const audit = underOneAppliedVersion(db, id, () => {
    const evaluation = getEvaluation(db, id);
    // The first pass's read settles the header, whatever the audit's other reads do (an unknown id: null, not their error).
    if (!firstPassStarted) evaluation.then(showFirstRead, failFirstRead);
    firstPassStarted = true;
    return auditUnder(db, id, evaluation, edits);
  });
  audit.catch((error: unknown) => {
    if (!firstPassStarted) failFirstRead(error); // a failure before any pass read the evaluation fails the header too
  });
  const header = Promise.all([firstRead, edits ? storedRunCount(db, id) : null]).then(([evaluation, runs]) =>
    evaluation ? { evaluation, runs } : null,
  );
  const open = openLiveRuns(db, id, 1);
  // An unknown id ends the page (404) at the header, before anything awaits the audit or the note.
  audit.catch(() => {});
  open.catch(() => {});
  return { header, audit, openLiveRuns: open };
}

const evaluationId = z.uuid();

/** One pass of the audit's reads, in parallel; the summary read once, for the cards and the statistics. */
async function auditUnder(
  db: SqlClient,
  id: string,
  evaluation: Promise<EvaluationDetail | null>,
  edits: boolean,
): Promise<EvaluationPageAudit | null> {
  const summary = readEvaluationSummary(db, id);
  const toolSuggestions = listToolSuggestions(db, id);
  // The rule's history, read once: the statistics' current rule is its newest version.
  const ruleHistory = exclusionRuleHistory(db, { kind: "evaluation", id });
  const [detail, ...figures] = await Promise.all([
    evaluation,
    summary,
    largestUnits(db, id),
    evaluation.then((e) => (e ? evaluationTools(db, id, e.effectPolicy, { countWrites: edits }) : [])),
    listEffectPolicyVersions(db, id),
    evaluationStatistics(
      db,
      id,
      summary,
      ruleHistory.then((history) => history.current),
    ),
    resetsOverriddenByCanary(db, id),
    ruleHistory,
    toolSuggestions,
    listHarnessMetrics(db, id),
    Promise.all([evaluation, toolSuggestions]).then(([e, suggested]) => (e ? suggestedTemplates(db, id, e.effectPolicy, suggested) : [])),
  ]);
  if (!detail) return null;
  const [summaryRead, units, tools, versions, statistics, overridden, rules, suggestions, harnessMetrics, templates] = figures;
  return {
    evaluation: detail,
    summary: summaryRead,
    largestUnits: units,
    tools,
    versions,
    statistics: { ...statistics, ruleHistory: rules.versions },
    resetsOverriddenByCanary: overridden,
    suggestions,
    templateSuggestions: templates,
    harnessMetrics,
  };
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

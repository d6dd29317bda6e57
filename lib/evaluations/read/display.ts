// The audit's words as the pages say them. Pure.
import { HARNESS_DESIGNS, isHarnessDesign } from "../harness-design";
import type { EvaluationSummary } from "./read-boundary";
import type { FinalityBasis, InheritedState, ToolClass, UnresolvedReason } from "../vocabulary";

/** Why a label is not final, in a reader's words (docs/evaluations.md, Rule 1). */
export const REASON_LABELS: Record<UnresolvedReason, string> = {
  pending_at_scoring: "pending at scoring, no evidence yet",
  resolved_after_scoring: "resolved, but after the run was scored",
  never_resolved: "the harness said it ended; no system evidence came",
  unverifiable: "unverifiable (no handle, or evidence that could not tell)",
  unclassified_tool: "the policy does not name the tool",
};

export const INHERITED_LABELS: Record<InheritedState, string> = {
  none: "none",
  internal: "internal (another run's state)",
  public: "public (through a public surface)",
};

/** What a tool's class means for its effect's finality: the explanation a "why unresolved" needs. */
export const CLASS_EXPLANATIONS: Record<ToolClass, string> = {
  read_only: "read-only: it changes nothing, so it never holds a label open",
  sync_confirmed: "synchronous and confirmed: a terminal status it returned by scoring ends it",
  async_handle: "asynchronous: acknowledged before it is applied, so only evidence checked by its handle ends it",
  external:
    "external: it acts outside what the run's record can confirm, so only resolution evidence recorded for it ends it (a status the harness reported is not enough)",
  unclassified: "unclassified: the effect policy does not name it, so it counts as open until it is classed",
};

/**
 * Whether a run's start is a recorded time: an importer gives a log without any time the Unix epoch
 * as its start (its other times count from it), which must never read as "1 Jan 1970".
 */
export const timesRecorded = (startedAt: Date): boolean => startedAt.getTime() !== 0;

/** What a final run rests on, in a reader's words (after "final"). */
export const BASIS_LABELS: Record<FinalityBasis, string> = {
  recorded_evidence: "by recorded evidence",
  harness_design: "by the harness's declared design",
  policy_class: "by the policy's class alone (a read-only tool, or a sync_confirmed tool's returned status)",
  no_effects: "with no effect to wait for",
};

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

/**
 * The sentence that says what the final runs rest on, e.g. "600 final: 600 by AgentDojo's design, 0 by
 * recorded evidence." Recorded evidence is always named, even at 0: it is the basis the others stand in for.
 */
export function finalBasisSentence(summary: Pick<EvaluationSummary, "final" | "finalBasis" | "harnessDesigns">): string {
  const { final, finalBasis, harnessDesigns } = summary;
  if (final.n === 0) return "No run is final yet.";
  const design = harnessDesigns.length === 1 ? `by ${harnessDesigns[0]!.harness}'s design` : BASIS_LABELS.harness_design;
  const parts = [
    ...(finalBasis.harness_design ? [`${finalBasis.harness_design.toLocaleString("en-US")} ${design}`] : []),
    `${(finalBasis.recorded_evidence ?? 0).toLocaleString("en-US")} ${BASIS_LABELS.recorded_evidence}`,
    ...(finalBasis.policy_class ? [`${finalBasis.policy_class.toLocaleString("en-US")} ${BASIS_LABELS.policy_class}`] : []),
    ...(finalBasis.no_effects ? [`${finalBasis.no_effects.toLocaleString("en-US")} ${BASIS_LABELS.no_effects}`] : []),
  ];
  return `${final.n.toLocaleString("en-US")} final: ${parts.join(", ")}.`;
}

/**
 * The sentence that says what the analysis units rest on: runs that declare a harness design are
 * separate by it (no route between them was recorded, and by design none exists); the others' units
 * come from the touches and resets recorded for them.
 */
export function separationBasisSentence(summary: Pick<EvaluationSummary, "units" | "harnessDesigns">): string {
  const { units, harnessDesigns } = summary;
  const declared = harnessDesigns.reduce((sum, d) => sum + d.runs, 0);
  const unitCount = plural(units.analysisUnits, "analysis unit");
  if (declared === 0) return `${unitCount} of ${plural(units.runRows, "run")}, from the touches and resets recorded for them.`;
  const names = harnessDesigns.map((d) => `${d.harness}'s`).join(" and ");
  return `${unitCount} of ${plural(units.runRows, "run")}: ${plural(declared, "run")} separate by ${names} design, ${plural(units.runRows - declared, "run")} by the touches and resets recorded for them.`;
}

/**
 * Why a final run is final, for its page: its basis, with the sources of the evidence it rests on, or
 * the statement of the design it declares. Null for a run that is not final.
 */
export function runBasisText(run: {
  finalityBasis: FinalityBasis | null;
  harnessDesign: string | null;
  effects: readonly { resolutions: readonly { verifiedBy: string | null }[] }[];
}): string | null {
  if (run.finalityBasis === null) return null;
  if (run.finalityBasis === "recorded_evidence") {
    const sources = [...new Set(run.effects.flatMap((e) => e.resolutions.map((r) => r.verifiedBy ?? "an unnamed source")))];
    return `${BASIS_LABELS.recorded_evidence}, from ${sources.join(", ")}`;
  }
  if (run.finalityBasis === "harness_design" && run.harnessDesign !== null && isHarnessDesign(run.harnessDesign)) {
    const design = HARNESS_DESIGNS[run.harnessDesign];
    return `by ${design.harness}'s design, not by evidence in its record: ${design.statement}`;
  }
  return BASIS_LABELS[run.finalityBasis];
}

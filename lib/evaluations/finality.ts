// Outcome finality for ingested runs (the paper, §3; docs/evaluations.md, Rule 1): a run's label is final only when every
// relevant effect (by the declared policy) was terminal at scoring; otherwise it is unresolved, with
// the reason, and it is not a failure. Pure: times are epoch milliseconds passed in as values. A disagreement is
// counted by lib/replay/rules/labels.ts's `disagrees`, exactly as Table 2 counts it.
import type { FinalityBasis, ResolutionStatus, StatusAtScoring, ToolClass, UnresolvedReason } from "./vocabulary";

export interface FinalityResolution {
  status: ResolutionStatus;
  atMs: number;
}

export interface FinalityEffect {
  effectId: string;
  tool: string;
  handle: string | null;
  requestedAtMs: number;
  statusAtScoring: StatusAtScoring;
  /** Every resolution stored for it, in the order they were appended: the last one is its current evidence. */
  resolutions: readonly FinalityResolution[];
}

export type RunFinality = { finality: "final" } | { finality: "unresolved"; reason: UnresolvedReason; effectId: string; tool: string };

const TERMINAL = new Set<string>(["completed", "failed", "cancelled"]);
export const isTerminalStatus = (status: string): boolean => TERMINAL.has(status);

/**
 * Why one effect was still open when the run was scored, or null when it was terminal at scoring or
 * is irrelevant (read-only). Terminal at scoring: system evidence of a terminal status at or
 * before scoring; for a synchronous, confirmed call also a terminal status at scoring (its return
 * proves it); a call the harness never ran (not_executed) is never open. Open, in order of precedence: the tool is unclassified; an asynchronous effect has
 * no handle to verify it by, or the evidence could not tell (unverifiable); evidence says it ended
 * after scoring (resolved_after_scoring); it was pending at scoring and no evidence has come
 * (pending_at_scoring); the harness said it had ended but no system evidence ever came (never_resolved).
 */
export function openReason(effect: FinalityEffect, cls: ToolClass, scoredAtMs: number): UnresolvedReason | null {
  if (cls === "read_only") return null;
  const evidence = effect.resolutions.at(-1);
  if (evidence && isTerminalStatus(evidence.status) && evidence.atMs <= scoredAtMs) return null;
  if (cls === "sync_confirmed" && isTerminalStatus(effect.statusAtScoring)) return null;
  // A call the harness never ran changed nothing, whatever its tool could have done.
  if (effect.statusAtScoring === "not_executed" && !evidence) return null;
  if (cls === "unclassified") return "unclassified_tool";
  if (cls === "async_handle" && effect.handle === null) return "unverifiable";
  if (evidence && isTerminalStatus(evidence.status)) return "resolved_after_scoring";
  if (evidence?.status === "unknown" || effect.statusAtScoring === "unknown") return "unverifiable";
  if (effect.statusAtScoring === "pending") return "pending_at_scoring";
  return "never_resolved";
}

/** A run's finality: unresolved by its earliest open relevant effect (by request time, then id), else final. */
export function auditFinality(
  run: { scoredAtMs: number; effects: readonly FinalityEffect[] },
  classOf: (tool: string) => ToolClass,
): RunFinality {
  const ordered = [...run.effects].sort(
    (a, b) => a.requestedAtMs - b.requestedAtMs || (a.effectId < b.effectId ? -1 : a.effectId > b.effectId ? 1 : 0),
  );
  for (const effect of ordered) {
    const reason = openReason(effect, classOf(effect.tool), run.scoredAtMs);
    if (reason) return { finality: "unresolved", reason, effectId: effect.effectId, tool: effect.tool };
  }
  return { finality: "final" };
}

/** How one effect of a final run was closed at scoring, by openReason's rule. */
function closedBy(effect: FinalityEffect, cls: ToolClass, scoredAtMs: number): "class" | "evidence" | "status" | "not_run" {
  if (cls === "read_only") return "class";
  const evidence = effect.resolutions.at(-1);
  if (evidence && isTerminalStatus(evidence.status) && evidence.atMs <= scoredAtMs) return "evidence";
  if (cls === "sync_confirmed" && isTerminalStatus(effect.statusAtScoring)) return "status";
  return "not_run";
}

/**
 * What a final run's finality rests on. The harness's word (a sync_confirmed tool's returned status)
 * is the weakest link: a run that needed it rests on the harness's declared design when it declares
 * one, else on the policy's class. Otherwise evidence recorded for its effects, when it had any; else
 * the class alone (read-only tools), or nothing at all (no effect ran). A declared design stands
 * behind every run of its harness that recorded evidence for none of its effects.
 */
export function finalityBasis(
  run: { scoredAtMs: number; effects: readonly FinalityEffect[] },
  classOf: (tool: string) => ToolClass,
  declaresDesign: boolean,
): FinalityBasis {
  const closed = new Set(run.effects.map((effect) => closedBy(effect, classOf(effect.tool), run.scoredAtMs)));
  if (!closed.has("status") && closed.has("evidence")) return "recorded_evidence";
  if (declaresDesign) return "harness_design";
  return closed.has("status") || closed.has("class") ? "policy_class" : "no_effects";
}

/** Bounds of the true success rate over all runs: unresolved runs counted as failures, then as successes. */
export function trueRateBounds(counts: { runs: number; finalSuccesses: number; unresolved: number }): {
  lower: { successes: number; n: number };
  upper: { successes: number; n: number };
} {
  return {
    lower: { successes: counts.finalSuccesses, n: counts.runs },
    upper: { successes: counts.finalSuccesses + counts.unresolved, n: counts.runs },
  };
}

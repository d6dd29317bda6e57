// An evaluation run's events as time since its start, and why its label is what it is. Pure: the
// run page reads the stored record through these.
import type { TimelineEvent } from "../../experiments/read/timeline";
import { CLASS_EXPLANATIONS, REASON_LABELS } from "./display";
import type { EvaluationRunDetail } from "./evaluation-run";
import { modelCallText } from "../model-calls";
import type { ToolClass } from "../vocabulary";

type Draft = Omit<TimelineEvent, "offsetMs" | "actor">;
const RESOLUTION_KINDS = { completed: "application", failed: "failure", cancelled: "cancellation", unknown: "inconclusive" } as const;

/** Every timed event of the record (start, model and tool calls, effects with their resolutions, touches, resets, scoring, end), in order, offsets in ms from the start. */
export function evaluationRunTimeline(run: EvaluationRunDetail): TimelineEvent[] {
  const drafts: Draft[] = [{ kind: "trace", atMs: run.startedAt.getTime(), label: "The run started" }];
  for (const call of Array.isArray(run.toolCalls) ? (run.toolCalls as { tool?: unknown; at?: unknown; callId?: unknown }[]) : []) {
    if (typeof call.at === "string")
      drafts.push({
        kind: "trace",
        atMs: Date.parse(call.at),
        label: `Tool call ${String(call.tool)}${call.callId ? ` (${String(call.callId)})` : ""}`,
      });
  }
  for (const call of run.modelCalls)
    if (call.startedAt !== null)
      drafts.push({ kind: "trace", atMs: Date.parse(call.startedAt), label: `Model call: ${modelCallText(call)}` });
  for (const effect of run.effects) {
    drafts.push({
      kind: "request",
      atMs: effect.requested_at.getTime(),
      label: `Effect ${effect.effect_id} requested: ${effect.tool}${effect.surface ? ` on ${effect.surface}` : ""}`,
    });
    if (effect.acknowledged_at)
      drafts.push({
        kind: "acknowledgement",
        atMs: effect.acknowledged_at.getTime(),
        label: `Effect ${effect.effect_id} acknowledged${effect.handle ? ` (handle ${effect.handle})` : ""}`,
      });
    for (const resolution of effect.resolutions) {
      drafts.push({
        kind: RESOLUTION_KINDS[resolution.status as keyof typeof RESOLUTION_KINDS] ?? "inconclusive",
        atMs: Date.parse(resolution.at),
        label: `Effect ${effect.effect_id} ${resolution.status}, by ${resolution.source === "posted" ? "evidence posted later" : "the record's evidence"}${resolution.verifiedBy ? ` (verified by ${resolution.verifiedBy})` : ""}`,
      });
    }
  }
  for (const touch of run.touches)
    drafts.push({
      kind: touch.op === "write" ? "write" : "read",
      atMs: touch.at.getTime(),
      label: `${touch.op === "score" ? "scored on" : touch.op} ${touch.surface}${touch.public ? " (public)" : ""}${touch.derived ? " (by the policy's template)" : ""}`,
    });
  for (const reset of run.resets)
    drafts.push({ kind: "reset", atMs: reset.at.getTime(), label: `Reset of ${reset.surface}, ${resetVerdict(reset)}` });
  if (run.scoredAt) drafts.push({ kind: "scoring", atMs: run.scoredAt.getTime(), label: `Scored: ${run.endpointLabel} at the endpoint` });
  if (run.endedAt) drafts.push({ kind: "end", atMs: run.endedAt.getTime(), label: "The run ended" });
  const start = run.startedAt.getTime();
  // A stable order: by time, the scoring marker after what happened at the same instant.
  return drafts
    .map((d, i) => ({ ...d, i }))
    .sort((a, b) => a.atMs - b.atMs || Number(a.kind === "scoring") - Number(b.kind === "scoring") || a.i - b.i)
    .map(({ i: _i, ...d }) => ({ ...d, actor: "single" as const, offsetMs: d.atMs - start }));
}

/** Each effect's open interval: from its request to its first terminal evidence (or still open), and whether it ended by scoring (null for an unscored run). */
export function effectIntervals(
  run: EvaluationRunDetail,
): { effectId: string; fromMs: number; toMs: number | null; endedByScoring: boolean | null }[] {
  const start = run.startedAt.getTime();
  const scored = run.scoredAt ? run.scoredAt.getTime() - start : null;
  return run.effects.map((effect) => {
    const ended = effect.resolutions.find((r) => r.status !== "unknown");
    const toMs = ended ? Date.parse(ended.at) - start : null;
    return {
      effectId: effect.effect_id,
      fromMs: effect.requested_at.getTime() - start,
      toMs,
      endedByScoring: scored === null ? null : toMs !== null && toMs <= scored,
    };
  });
}

/** A reset as the audit counts it: a canary found after it overrides the harness's `verified` (separation.ts, resetBreaksRoutes). */
function resetVerdict(reset: EvaluationRunDetail["resets"][number]): string {
  const survived = reset.canaries.find((c) => c.found);
  if (survived)
    return `recorded ${reset.verified ? "verified" : "not verified"}, but its canary (${survived.planted}) was found after it: counted as not verified`;
  const checked = reset.canaries.length ? `; its canary was not found after it` : "";
  return `${reset.verified ? "verified" : "not verified"}${checked}`;
}

/**
 * Why the run's label is final or unresolved, and what a disagreement means, in sentences; an
 * unresolved run names its open tool's class (under `classOf`, the evaluation's policy), which is
 * what decides whether a status the harness reported ends the effect.
 */
export function explainEvaluationRun(run: EvaluationRunDetail, classOf: (tool: string) => ToolClass): { summary: string; notes: string[] } {
  const notes: string[] = [];
  if (run.terminalLabel && run.disagreement)
    notes.push(`The terminal label (${run.terminalLabel}) differs from the endpoint label (${run.endpointLabel}): a disagreement.`);
  for (const reset of run.resets.filter((r) => r.verified && r.canaries.some((c) => c.found))) {
    notes.push(
      `Its verified reset of ${reset.surface} counts as not verified: a canary planted before it was found after it, so it breaks no route between runs.`,
    );
  }
  if (run.inheritedState !== "none")
    notes.push(
      `It received another run's state (${run.inheritedState}), so it shares analysis unit ${run.unitLabel ?? run.analysisUnit} with the runs that reached it.`,
    );
  if (run.finality === "unscored")
    return {
      summary: `Unscored: the harness recorded no score for this run (${run.unscoredReason ?? "no reason given"}), so it has no endpoint label and is in no rate's population; it is counted on its own as unscored.`,
      notes,
    };
  if (run.finality === "final")
    return {
      summary: `Final: every relevant effect was terminal when the run was scored, so the endpoint label (${run.endpointLabel}) stands.`,
      notes,
    };
  const reason = run.unresolvedReason ? REASON_LABELS[run.unresolvedReason] : "an effect was open";
  const tool = run.unresolvedTool;
  const cls = tool === null ? "" : ` ${tool} is ${CLASS_EXPLANATIONS[classOf(tool)]}.`;
  return {
    summary: `Unresolved, not failed: effect ${run.unresolvedEffectId ?? "?"} (${tool ?? "unknown tool"}) was open at scoring — ${reason}.${cls} The endpoint label (${run.endpointLabel}) counts only in the reported rate.`,
    notes,
  };
}

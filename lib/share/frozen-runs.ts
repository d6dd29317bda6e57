// An evaluation's runs as a frozen share link shows them: as they stood when the link was made. Pure.
//
// What can be read as of the freeze, exactly: which runs were stored (created_at), the resolution
// evidence (append-only, each with its recorded_at), and so each run's finality under the policy
// the link froze. What cannot: a run re-sent with changes after the freeze (its earlier record is
// replaced, not kept), and the separation audit (units, inherited state), which new runs can move.
// Times are the rows' own (created_at and recorded_at are their transaction's start): a batch whose
// transaction began before the freeze and committed after it reads as stored by then.
import { auditFinality, finalityBasis, type FinalityEffect } from "../evaluations/finality";
import type { EvaluationRunDetail } from "../evaluations/read/evaluation-run";
import type { EvaluationRunListItem } from "../evaluations/read/read-boundary";
import { classifyTool } from "../evaluations/policy";
import type { EffectPolicy } from "../evaluations/effect-policy-schema";
import type { ResolutionStatus, StatusAtScoring } from "../evaluations/vocabulary";

/** When a frozen link was made and the policy its figures were taken under. */
export interface RunsFreeze {
  at: Date;
  effectPolicy: EffectPolicy;
  effectPolicyVersion: number;
}

export interface FreezeResolution {
  status: string;
  at: string;
  recordedAt: string;
}

/** What the audit of one effect needs, with every resolution stored for it (oldest first). */
export interface FreezeEffect {
  effectId: string;
  tool: string;
  handle: string | null;
  requestedAt: Date;
  statusAtScoring: string;
  resolutions: readonly FreezeResolution[];
}

/** The resolutions recorded by the freeze (evidence is append-only: what came later is left out). */
export function evidenceAtFreeze<R extends { recordedAt: string }>(resolutions: readonly R[], at: Date): R[] {
  return resolutions.filter((r) => Date.parse(r.recordedAt) <= at.getTime());
}

type AuditColumns = Pick<
  EvaluationRunListItem,
  "finality" | "unresolvedReason" | "unresolvedEffectId" | "unresolvedTool" | "finalityBasis"
>;

/**
 * A stored run's finality columns as the link froze them: the finality rule over its effects with the
 * evidence recorded by then, under the frozen policy. An unscored run stays unscored.
 */
export function auditAtFreeze(
  run: Pick<EvaluationRunListItem, "finality" | "scoredAt" | "harnessDesign">,
  effects: readonly FreezeEffect[],
  freeze: RunsFreeze,
): AuditColumns {
  if (run.finality === "unscored" || run.scoredAt === null)
    return { finality: "unscored", unresolvedReason: null, unresolvedEffectId: null, unresolvedTool: null, finalityBasis: null };
  const classOf = (tool: string) => classifyTool(freeze.effectPolicy, tool);
  const audited = {
    scoredAtMs: run.scoredAt.getTime(),
    effects: effects.map((e): FinalityEffect => ({
      effectId: e.effectId,
      tool: e.tool,
      handle: e.handle,
      requestedAtMs: e.requestedAt.getTime(),
      statusAtScoring: e.statusAtScoring as StatusAtScoring,
      resolutions: evidenceAtFreeze(e.resolutions, freeze.at).map((r) => ({
        status: r.status as ResolutionStatus,
        atMs: Date.parse(r.at),
      })),
    })),
  };
  const finality = auditFinality(audited, classOf);
  return finality.finality === "final"
    ? {
        finality: "final",
        unresolvedReason: null,
        unresolvedEffectId: null,
        unresolvedTool: null,
        finalityBasis: finalityBasis(audited, classOf, run.harnessDesign !== null),
      }
    : {
        finality: "unresolved",
        unresolvedReason: finality.reason,
        unresolvedEffectId: finality.effectId,
        unresolvedTool: finality.tool,
        finalityBasis: null,
      };
}

/** How a run stands under a frozen link. */
export type FrozenRunState =
  /** Stored after the link was made: the link does not show it. */
  | "after_freeze"
  /** Re-sent with changes after the link was made: its record as frozen is not kept. */
  | "changed_after_freeze"
  /** Its record is as frozen; its finality is the freeze's. */
  | "as_frozen";

export function frozenRunState(run: { createdAt: Date; updatedAt: Date }, at: Date): FrozenRunState {
  if (run.createdAt.getTime() > at.getTime()) return "after_freeze";
  if (run.updatedAt.getTime() > at.getTime()) return "changed_after_freeze";
  return "as_frozen";
}

/** A run's page as the link froze it: the evidence recorded by then, and the finality it gave under the frozen policy. */
export function runDetailAtFreeze(run: EvaluationRunDetail, freeze: RunsFreeze): EvaluationRunDetail {
  const effects = run.effects.map((e) => ({ ...e, resolutions: evidenceAtFreeze(e.resolutions, freeze.at) }));
  const audit = auditAtFreeze(
    run,
    effects.map((e) => ({
      effectId: e.effect_id,
      tool: e.tool,
      handle: e.handle,
      requestedAt: e.requested_at,
      statusAtScoring: e.status_at_scoring,
      resolutions: e.resolutions,
    })),
    freeze,
  );
  return { ...run, ...audit, effects };
}

/** Whether a run, audited as of the freeze, matches a list's filters on the audit (a run re-sent since is kept: its audit then is unknown). */
export function matchesAuditAtFreeze(
  run: Pick<EvaluationRunListItem, "finality" | "unresolvedReason" | "unresolvedTool"> & { frozenState: FrozenRunState },
  filters: { finality?: string; reason?: string; tool?: string },
): boolean {
  if (run.frozenState === "changed_after_freeze") return true;
  return (
    (!filters.finality || run.finality === filters.finality) &&
    (!filters.reason || run.unresolvedReason === filters.reason) &&
    (!filters.tool || run.unresolvedTool === filters.tool)
  );
}

import { describe, expect, it } from "vitest";
import { auditAtFreeze, evidenceAtFreeze, frozenRunState, matchesAuditAtFreeze, type FreezeEffect, type RunsFreeze } from "./frozen-runs";

const t = (second: number) => new Date(Date.UTC(2026, 11, 1, 10, 0, second));
const iso = (second: number) => t(second).toISOString();
const freeze: RunsFreeze = { at: t(30), effectPolicy: { tools: { "bank.transfer": "async_handle" } }, effectPolicyVersion: 1 };
const run = { finality: "final" as const, scoredAt: t(5), harnessDesign: null };
const transfer = (resolutions: FreezeEffect["resolutions"]): FreezeEffect => ({
  effectId: "e1",
  tool: "bank.transfer",
  handle: "tx-1",
  requestedAt: t(1),
  statusAtScoring: "pending",
  resolutions,
});

describe("evidenceAtFreeze", () => {
  it("keeps the evidence recorded by the freeze, the freeze's own instant included, and drops what came later", () => {
    const evidence = [{ recordedAt: iso(10) }, { recordedAt: iso(30) }, { recordedAt: iso(31) }];
    expect(evidenceAtFreeze(evidence, freeze.at)).toEqual([{ recordedAt: iso(10) }, { recordedAt: iso(30) }]);
  });
});

describe("auditAtFreeze", () => {
  it("keeps a run unresolved (pending at scoring) when its evidence was posted after the freeze, though it is final now", () => {
    const late = transfer([{ status: "completed", at: iso(3), recordedAt: iso(40) }]);
    expect(auditAtFreeze(run, [late], freeze)).toEqual({
      finality: "unresolved",
      unresolvedReason: "pending_at_scoring",
      unresolvedEffectId: "e1",
      unresolvedTool: "bank.transfer",
      finalityBasis: null,
    });
  });
  it("counts evidence recorded before the freeze: final by recorded evidence", () => {
    const early = transfer([{ status: "completed", at: iso(3), recordedAt: iso(20) }]);
    expect(auditAtFreeze(run, [early], freeze)).toMatchObject({ finality: "final", finalityBasis: "recorded_evidence" });
  });
  it("audits under the frozen policy, not the one in force now", () => {
    const readOnly = { ...freeze, effectPolicy: { tools: { "bank.transfer": "read_only" as const } } };
    expect(auditAtFreeze(run, [transfer([])], readOnly)).toMatchObject({ finality: "final", finalityBasis: "policy_class" });
    expect(auditAtFreeze(run, [transfer([])], freeze)).toMatchObject({ finality: "unresolved", unresolvedReason: "pending_at_scoring" });
  });
  it("leaves an unscored run unscored", () => {
    expect(auditAtFreeze({ finality: "unscored", scoredAt: null, harnessDesign: null }, [transfer([])], freeze).finality).toBe("unscored");
  });
});

describe("frozenRunState", () => {
  it("tells a run stored after the freeze, one re-sent after it, and one as frozen", () => {
    expect(frozenRunState({ createdAt: t(31), updatedAt: t(31) }, freeze.at)).toBe("after_freeze");
    expect(frozenRunState({ createdAt: t(10), updatedAt: t(31) }, freeze.at)).toBe("changed_after_freeze");
    expect(frozenRunState({ createdAt: t(10), updatedAt: t(30) }, freeze.at)).toBe("as_frozen");
  });
});

describe("matchesAuditAtFreeze", () => {
  const unresolved = { finality: "unresolved" as const, unresolvedReason: "pending_at_scoring" as const, unresolvedTool: "bank.transfer" };
  it("matches the filters on the audit as of the freeze", () => {
    expect(matchesAuditAtFreeze({ ...unresolved, frozenState: "as_frozen" }, { finality: "unresolved", tool: "bank.transfer" })).toBe(true);
    expect(matchesAuditAtFreeze({ ...unresolved, frozenState: "as_frozen" }, { finality: "final" })).toBe(false);
    expect(matchesAuditAtFreeze({ ...unresolved, frozenState: "as_frozen" }, { reason: "never_resolved" })).toBe(false);
  });
  it("keeps a run re-sent since: its audit as frozen is unknown, and the list says so", () => {
    expect(matchesAuditAtFreeze({ ...unresolved, frozenState: "changed_after_freeze" }, { finality: "final" })).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { disagrees } from "../replay/rules/labels";
import { auditFinality, finalityBasis, openReason, trueRateBounds, type FinalityEffect } from "./finality";
import { toolClassifier } from "./policy";

// Hand-made runs: scored at t=100 ms, effects requested at t=10.
const classOf = toolClassifier({
  tools: { "db.write": "sync_confirmed", "jobs.submit": "async_handle", "mail.send": "external", "search.*": "read_only" },
});
const effect = (over: Partial<FinalityEffect>): FinalityEffect => ({
  effectId: "e1",
  tool: "jobs.submit",
  handle: "job-1",
  requestedAtMs: 10,
  statusAtScoring: "pending",
  resolutions: [],
  ...over,
});
const run = (...effects: FinalityEffect[]) => auditFinality({ scoredAtMs: 100, effects }, classOf);

describe("finality", () => {
  it("is final with no effects, with read-only effects, and with every relevant effect terminal at scoring", () => {
    expect(run()).toEqual({ finality: "final" });
    expect(run(effect({ tool: "search.web", statusAtScoring: "pending" }))).toEqual({ finality: "final" });
    expect(
      run(
        effect({ tool: "db.write", statusAtScoring: "completed" }),
        effect({ effectId: "e2", resolutions: [{ status: "completed", atMs: 90 }] }),
      ),
    ).toEqual({ finality: "final" });
    // evidence exactly at scoring counts as terminal at scoring
    expect(run(effect({ tool: "mail.send", resolutions: [{ status: "failed", atMs: 100 }] }))).toEqual({ finality: "final" });
  });

  it("leaves a run whose effect resolved after scoring unresolved, naming the effect and tool", () => {
    expect(run(effect({ resolutions: [{ status: "completed", atMs: 150 }] }))).toEqual({
      finality: "unresolved",
      reason: "resolved_after_scoring",
      effectId: "e1",
      tool: "jobs.submit",
    });
  });

  it("names pending at scoring, never resolved and unverifiable", () => {
    expect(run(effect({}))).toMatchObject({ reason: "pending_at_scoring" });
    // the harness said it completed, but an asynchronous effect needs system evidence, and none came
    expect(run(effect({ statusAtScoring: "completed" }))).toMatchObject({ reason: "never_resolved" });
    expect(run(effect({ tool: "mail.send", statusAtScoring: "completed" }))).toMatchObject({ reason: "never_resolved" });
    // no handle to ask the system by, or evidence that could not tell
    expect(run(effect({ handle: null, resolutions: [{ status: "completed", atMs: 50 }] }))).toEqual({ finality: "final" });
    expect(run(effect({ handle: null }))).toMatchObject({ reason: "unverifiable" });
    expect(run(effect({ resolutions: [{ status: "unknown", atMs: 50 }] }))).toMatchObject({ reason: "unverifiable" });
    expect(run(effect({ tool: "db.write", statusAtScoring: "unknown" }))).toMatchObject({ reason: "unverifiable" });
  });

  it("never treats an unclassified tool as read-only", () => {
    expect(run(effect({ tool: "shell.exec", statusAtScoring: "completed" }))).toEqual({
      finality: "unresolved",
      reason: "unclassified_tool",
      effectId: "e1",
      tool: "shell.exec",
    });
    expect(run(effect({ tool: "shell.exec", resolutions: [{ status: "completed", atMs: 40 }] }))).toEqual({ finality: "final" });
  });

  it("a call the harness never ran leaves nothing open, whatever its tool's class; evidence that it ran still counts", () => {
    for (const tool of ["jobs.submit", "mail.send", "db.write", "shell.exec"])
      expect(run(effect({ tool, handle: null, statusAtScoring: "not_executed" })), tool).toEqual({ finality: "final" });
    expect(run(effect({ statusAtScoring: "not_executed", resolutions: [{ status: "completed", atMs: 150 }] }))).toMatchObject({
      finality: "unresolved",
      reason: "resolved_after_scoring",
    });
    // Beside an open effect, the run stays unresolved by that one.
    expect(run(effect({ statusAtScoring: "not_executed" }), effect({ effectId: "e2", tool: "mail.send" }))).toMatchObject({
      reason: "pending_at_scoring",
      effectId: "e2",
    });
  });

  it("takes the latest appended evidence, and names the earliest open effect", () => {
    expect(
      run(
        effect({
          resolutions: [
            { status: "completed", atMs: 50 },
            { status: "unknown", atMs: 120 },
          ],
        }),
      ),
    ).toMatchObject({ reason: "unverifiable" });
    const late = effect({ effectId: "late", requestedAtMs: 60 });
    const early = effect({ effectId: "early", requestedAtMs: 20, tool: "mail.send" });
    expect(run(late, early)).toMatchObject({ effectId: "early", tool: "mail.send", reason: "pending_at_scoring" });
  });

  it("a synchronous, confirmed call's return proves it; pending, it needs evidence", () => {
    expect(openReason(effect({ tool: "db.write", statusAtScoring: "failed" }), "sync_confirmed", 100)).toBeNull();
    expect(openReason(effect({ tool: "db.write", statusAtScoring: "pending" }), "sync_confirmed", 100)).toBe("pending_at_scoring");
  });

  it("counts disagreements as Table 2 does, and bounds the true rate", () => {
    expect(disagrees("success", "failure")).toBe(true);
    expect(disagrees("success", "success")).toBe(false);
    expect(disagrees("success", null)).toBe(false);
    expect(trueRateBounds({ runs: 10, finalSuccesses: 4, unresolved: 3 })).toEqual({
      lower: { successes: 4, n: 10 },
      upper: { successes: 7, n: 10 },
    });
  });

  it("names what a final run rests on: evidence, the harness's declared design or the policy's class, or nothing to wait for", () => {
    const basis = (declares: boolean, ...effects: FinalityEffect[]) => finalityBasis({ scoredAtMs: 100, effects }, classOf, declares);
    const evidenced = effect({ resolutions: [{ status: "completed", atMs: 90 }] });
    const returned = effect({ effectId: "e2", tool: "db.write", statusAtScoring: "completed" });
    const read = effect({ effectId: "e3", tool: "search.web", statusAtScoring: "completed" });
    const neverRan = effect({ effectId: "e4", tool: "mail.send", statusAtScoring: "not_executed" });
    expect(basis(false, evidenced)).toBe("recorded_evidence");
    // A read-only tool beside evidence does not weaken it; a returned status does.
    expect(basis(false, evidenced, read)).toBe("recorded_evidence");
    expect(basis(false, evidenced, returned)).toBe("policy_class");
    expect(basis(true, evidenced, returned)).toBe("harness_design");
    expect(basis(false, read)).toBe("policy_class");
    expect(basis(false, neverRan)).toBe("no_effects");
    expect(basis(false)).toBe("no_effects");
    // A declared design stands behind every run of its harness without evidence, even one that called nothing.
    expect(basis(true)).toBe("harness_design");
    expect(basis(true, evidenced)).toBe("recorded_evidence");
    // Evidence of a sync_confirmed call closes it by evidence, not by its return.
    expect(basis(false, effect({ tool: "db.write", statusAtScoring: "completed", resolutions: [{ status: "completed", atMs: 50 }] }))).toBe(
      "recorded_evidence",
    );
  });
});

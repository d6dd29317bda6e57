import { describe, expect, it } from "vitest";
import { replayConfigSchema } from "./config";
import { expectedTable2, table2Mismatches } from "./expected-table2";

const paper = replayConfigSchema.parse({});

describe("expectedTable2", () => {
  it("is the paper's Table 2 on the paper's grid (numbers from DESIGN.md)", () => {
    const t = expectedTable2(paper);
    const f = Object.fromEntries(t.finality.map((r) => [r.policy, r]));
    expect(f.snapshot).toEqual({
      policy: "snapshot",
      trials: 200,
      successes: 50,
      trialsNonzeroDelay: 150,
      successesNonzeroDelay: 0,
      disagreements: 150,
      disagreementsNonzeroDelay: 150,
    });
    expect(f.reconciliation).toMatchObject({ successes: 200, successesNonzeroDelay: 150, disagreements: 150 });
    expect(f.verified_cancellation).toMatchObject({ successes: 50, successesNonzeroDelay: 0, disagreements: 0 });
    for (const p of ["sync_snapshot", "sync_reconciliation", "sync_verified_cancellation"])
      expect(f[p]).toMatchObject({ successes: 200, disagreements: 0 });
    const s = Object.fromEntries(t.separation.map((r) => [r.condition, r]));
    expect(s.shared).toEqual({ condition: "shared", pairs: 200, exposures: 150, runRows: 400, analysisUnits: 400, meanScoreB: 0.25 });
    expect(s.grouped).toEqual({ condition: "grouped", pairs: 200, exposures: 150, runRows: 400, analysisUnits: 200, meanScoreB: 0.25 });
    for (const c of ["namespaced", "verified_reset", "no_write", "b_before_a"])
      expect(s[c]).toMatchObject({ pairs: 200, exposures: 0, analysisUnits: 400, meanScoreB: 1 });
  });

  it("scales to other grids: only zero delays", () => {
    const t = expectedTable2({ ...paper, delaysMs: [0], schedules: 1, repetitions: 3 });
    expect(t.finality.find((r) => r.policy === "snapshot")).toMatchObject({
      trials: 3,
      successes: 3,
      disagreements: 0,
      trialsNonzeroDelay: 0,
    });
    expect(t.separation.find((r) => r.condition === "shared")).toMatchObject({ exposures: 0, meanScoreB: 1 });
  });
});

describe("table2Mismatches", () => {
  it("is empty for an exact summary and names every differing field otherwise", () => {
    const exact = expectedTable2(paper);
    expect(table2Mismatches(exact, paper)).toEqual([]);
    const off = structuredClone(exact);
    off.finality[0]!.successes = 51;
    off.separation = off.separation.filter((r) => r.condition !== "no_write");
    expect(table2Mismatches(off, paper)).toEqual(["snapshot.successes: 51, expected 50", "no_write: missing"]);
  });
});

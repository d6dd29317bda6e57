import { describe, expect, it } from "vitest";
import { replayConfigSchema } from "../../replay/rules/config";
import { expectedTable2 } from "../../replay/rules/expected-table2";
import { isPaperGrid, paperTable2Comparison, table2Comparison } from "./paper-table2";

describe("paperTable2Comparison", () => {
  it("matches every published row on the paper grid's exact counts", () => {
    const rows = paperTable2Comparison(expectedTable2(replayConfigSchema.parse({})));
    expect(rows.map((r) => [r.condition, r.published, r.reproduced, r.matches])).toEqual([
      ["Snapshot", "0/150 successes at nonzero delays", "0/150 successes at nonzero delays", true],
      ["Reconciliation", "150/150 successes at nonzero delays", "150/150 successes at nonzero delays", true],
      ["Verified cancellation", "0/150 successes at nonzero delays", "0/150 successes at nonzero delays", true],
      ["Synchronous control", "0/600 disagreements", "0/600 disagreements", true],
      ["Shared state", "150/200 exposures", "150/200 exposures", true],
      ["Shared state: B's mean score against namespacing", "0.75 lower", "0.75 lower", true],
      ["Namespacing", "0/200 exposures", "0/200 exposures", true],
      ["Verified reset", "0/200 exposures", "0/200 exposures", true],
      ["No-write control", "0/200 exposures", "0/200 exposures", true],
    ]);
  });

  it("shows a smaller grid's own figures as not matching, and a missing condition as not reproduced", () => {
    const small = expectedTable2(
      replayConfigSchema.parse({ delaysMs: [0, 25], schedules: 1, repetitions: 2, separationConditions: ["shared"] }),
    );
    const rows = paperTable2Comparison(small);
    expect(rows[0]).toMatchObject({ reproduced: "0/2 successes at nonzero delays", matches: false });
    expect(rows.find((r) => r.condition === "Namespacing")).toMatchObject({ reproduced: null, matches: null });
    expect(rows.find((r) => r.condition.startsWith("Shared state:"))).toMatchObject({ reproduced: null, matches: null });
  });

  it("flags one flipped trial", () => {
    const counts = expectedTable2(replayConfigSchema.parse({}));
    counts.finality.find((f) => f.policy === "snapshot")!.successesNonzeroDelay = 1;
    expect(paperTable2Comparison(counts)[0]).toMatchObject({ reproduced: "1/150 successes at nonzero delays", matches: false });
  });
});

describe("table2Comparison", () => {
  const small = replayConfigSchema.parse({
    delaysMs: [0, 25],
    schedules: 1,
    repetitions: 2,
    separationConditions: ["shared", "namespaced"],
  });

  it("compares a small grid with its own prediction, not the paper's counts, and shows no published figure", () => {
    const rows = table2Comparison(expectedTable2(small), small, "complete");
    expect(rows[0]).toEqual({
      test: "Finality",
      condition: "Snapshot",
      published: null,
      expected: "0/2 successes at nonzero delays",
      reproduced: "0/2 successes at nonzero delays",
      status: "match",
    });
    expect(rows.find((r) => r.condition.startsWith("Shared state:"))).toMatchObject({
      expected: "0.50 lower",
      reproduced: "0.50 lower",
      status: "match",
    });
    expect(rows.find((r) => r.condition === "Verified reset")).toMatchObject({ expected: null, status: "not_in_grid" });
  });

  it("shows the paper's figures on the paper's grid only, whatever the order of its delays", () => {
    const paper = replayConfigSchema.parse({ delaysMs: [250, 100, 25, 0] });
    expect(isPaperGrid(paper)).toBe(true);
    expect(isPaperGrid(small)).toBe(false);
    const rows = table2Comparison(expectedTable2(paper), paper, "complete");
    expect(rows.every((r) => r.published !== null && r.published === r.expected && r.status === "match")).toBe(true);
  });

  it("says pending while the experiment runs, incomplete once it stopped early, and differs on one flipped trial", () => {
    const counts = expectedTable2(small);
    counts.finality.find((f) => f.policy === "snapshot")!.successesNonzeroDelay = 1;
    expect(table2Comparison(counts, small, "running")[0]!.status).toBe("pending");
    expect(table2Comparison(counts, small, "stopped")[0]!.status).toBe("incomplete");
    expect(table2Comparison(counts, small, "complete")[0]).toMatchObject({
      reproduced: "1/2 successes at nonzero delays",
      status: "differs",
    });
  });
});

import { describe, expect, it } from "vitest";
import { RUN_CLASSIFICATIONS } from "../replay/rules/classification";
import { FINALITY_POLICIES, SEPARATION_CONDITIONS } from "../replay/rules/config";
import {
  CLASSIFICATION_LABELS,
  CONDITION_LABELS,
  POLICY_LABELS,
  accountingRows,
  checksTally,
  describeGrid,
  formatMeanScore,
  formatMs,
} from "./replay-labels";

describe("labels", () => {
  it("name every policy, condition and classification, each differently", () => {
    for (const [keys, labels] of [
      [FINALITY_POLICIES, POLICY_LABELS],
      [SEPARATION_CONDITIONS, CONDITION_LABELS],
      [RUN_CLASSIFICATIONS, CLASSIFICATION_LABELS],
    ] as const) {
      const names = keys.map((k) => (labels as Record<string, string>)[k]);
      expect(names.every((n) => typeof n === "string" && n.length > 0)).toBe(true);
      expect(new Set(names).size).toBe(keys.length);
    }
  });
});

describe("describeGrid", () => {
  it("names schedules, delays and repetitions with the right plurals", () => {
    expect(describeGrid({ schedules: 1, delaysMs: [0, 25], repetitions: 2 })).toBe("1 schedule × delays {0, 25} ms × 2 repetitions");
    expect(describeGrid({ schedules: 5, delaysMs: [0, 25, 100, 250], repetitions: 1 })).toBe(
      "5 schedules × delays {0, 25, 100, 250} ms × 1 repetition",
    );
  });
});

describe("formatMs and formatMeanScore", () => {
  it("show two decimals", () => {
    expect(formatMs(0.3449)).toBe("0.34 ms");
    expect(formatMs(254.85)).toBe("254.85 ms");
    expect(formatMeanScore(0.25)).toBe("0.25");
    expect(formatMeanScore(1)).toBe("1.00");
    expect(formatMeanScore(0)).toBe("0.00");
  });
  it("says n/a rather than inventing a mean when no B run was scored", () => {
    expect(formatMeanScore(null)).toBe("n/a");
  });
});

describe("accountingRows", () => {
  it("lists every classification over the total of stored runs, zeros included", () => {
    const rows = accountingRows({ completed: 46, agent_failure: 0, protocol_stop: 0, environment_failure: 2, missing_evidence: 0 });
    expect(rows.map((r) => r.classification)).toEqual([...RUN_CLASSIFICATIONS]);
    expect(rows.map((r) => r.runs)).toEqual(["46/48", "0/48", "0/48", "2/48", "0/48"]);
    expect(rows[3]!.label).toBe("environment failure");
  });
  it("shows 0/0 when no run is stored yet", () => {
    const rows = accountingRows({ completed: 0, agent_failure: 0, protocol_stop: 0, environment_failure: 0, missing_evidence: 0 });
    expect(rows.every((r) => r.runs === "0/0")).toBe(true);
  });
});

describe("checksTally", () => {
  it("counts passes over all checks", () => {
    expect(checksTally([{ passed: true }, { passed: true }])).toEqual({ text: "2/2 passed", allPassed: true });
    expect(checksTally([{ passed: true }, { passed: false }])).toEqual({ text: "1/2 passed", allPassed: false });
  });
  it("does not call an empty list of checks a pass", () => {
    expect(checksTally([])).toEqual({ text: "0/0 passed", allPassed: false });
  });
});

import { describe, expect, it } from "vitest";
import { replayConfigSchema } from "./config";
import { expectedRunCount, gridUnits, unitGroupId, unitNamespace } from "./grid";

const paper = replayConfigSchema.parse({});

describe("gridUnits", () => {
  it("has 200 units per policy and per condition on the paper grid", () => {
    const units = gridUnits(paper);
    expect(units).toHaveLength(12 * 200);
    for (const condition of [...paper.finalityPolicies, ...paper.separationConditions]) {
      expect(units.filter((u) => u.condition === condition)).toHaveLength(200);
    }
    expect(units.filter((u) => u.delayMs === 0)).toHaveLength(12 * 50);
  });
  it("reuses the same schedule ids across policies", () => {
    const ids = (c: string) =>
      new Set(
        gridUnits(paper)
          .filter((u) => u.condition === c)
          .map((u) => `${u.scheduleId}/${u.delayMs}/${u.repetition}`),
      );
    expect(ids("snapshot")).toEqual(ids("verified_cancellation"));
    expect(ids("snapshot")).toEqual(ids("shared"));
  });
  it("interleaves delays so that a bounded pool does not take all long waits at once", () => {
    const firstTwelve = gridUnits(paper).slice(0, 48);
    expect(new Set(firstTwelve.map((u) => u.delayMs))).toEqual(new Set([0, 25, 100, 250]));
  });
});

describe("namespaces and groups", () => {
  it("gives every unit its own namespace, and a retry a fresh one", () => {
    const units = gridUnits(paper);
    const spaces = new Set(units.map((u) => unitNamespace("bl/x", u, 0)));
    expect(spaces.size).toBe(units.length);
    expect(unitNamespace("bl/x", units[0]!, 1)).not.toBe(unitNamespace("bl/x", units[0]!, 0));
    expect(new Set(units.map(unitGroupId)).size).toBe(units.length);
  });
  it("expects one run per finality trial and two per separation pair", () => {
    expect(expectedRunCount(paper)).toBe(6 * 200 + 6 * 400);
    expect(expectedRunCount({ ...paper, separationConditions: [] })).toBe(1200);
  });
});

describe("several traces", () => {
  const second = { ...paper.traces[0]!, taskId: "banking/user_task_4" };
  const two = { ...paper, traces: [paper.traces[0]!, second] };
  it("replays the whole grid for each trace, in namespaces and groups of its own", () => {
    const units = gridUnits(two);
    expect(units).toHaveLength(2 * 12 * 200);
    expect(units.filter((u) => u.trace === 1)).toHaveLength(12 * 200);
    expect(new Set(units.map((u) => unitNamespace("bl/x", u, 0))).size).toBe(units.length);
    expect(new Set(units.map(unitGroupId)).size).toBe(units.length);
    expect(expectedRunCount(two)).toBe(2 * (6 * 200 + 6 * 400));
  });
});

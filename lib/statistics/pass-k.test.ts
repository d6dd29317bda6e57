import { describe, expect, it } from "vitest";
import { passK, tasksFromTrials, type TaskTrials, type Trial } from "./pass-k";

const task = (taskId: string, trials: number, successes: number, fields: Partial<TaskTrials> = {}): TaskTrials => ({
  taskId,
  trials,
  successes,
  analysisUnits: trials,
  inheritedState: "none",
  ...fields,
});

describe("pass^k and pass@k", () => {
  it("average τ-bench's per-task estimators, k = 1..n", () => {
    const result = passK([task("a", 4, 2), task("b", 4, 4)]);
    expect(result.available).toBe(true);
    if (!result.available) return;
    expect(result.values.map((v) => v.k)).toEqual([1, 2, 3, 4]);
    // pass^1 = (2/4 + 4/4)/2 = 0.75; pass^2 = (C(2,2)/C(4,2) + 1)/2 = (1/6 + 1)/2 = 7/12;
    // pass^3 = (C(2,3)/C(4,3) + 1)/2 = (0 + 1)/2 (c < k); pass^4 (k = n) = (0 + 1)/2
    expect(result.values.map((v) => v.value)).toEqual([0.75, 7 / 12, 0.5, 0.5]);
    // pass@1 = 1 − (C(2,1)/4 + C(0,1)/4)/2 = 1 − 0.25; pass@2 = 1 − (C(2,2)/6 + 0)/2 = 11/12; pass@3 = pass@4 = 1 − 0
    expect(result.values.map((v) => v.passAtK)).toEqual([0.75, 11 / 12, 1, 1]);
  });

  it("stops at the fewest trials and lets each task use its own n", () => {
    const result = passK([task("a", 3, 1), task("b", 5, 5)]);
    if (!result.available) throw new Error(result.reason);
    // pass^1 = (1/3 + 5/5)/2 = 2/3; pass^2 = (C(1,2)/C(3,2) + C(5,2)/C(5,2))/2 = (0 + 1)/2; pass^3 = (0 + 1)/2
    expect(result.values.map((v) => v.value)).toEqual([2 / 3, 0.5, 0.5]);
  });

  it("stays exact at large n", () => {
    const result = passK([task("a", 1000, 999)]);
    if (!result.available) throw new Error(result.reason);
    expect(result.values).toHaveLength(1000);
    // C(999, 500)/C(1000, 500) = (1000 − 500)/1000 = 0.5, both binomials ≈ 10^299
    expect(result.values[499]).toEqual({ k: 500, value: 0.5, passAtK: 1 }); // pass@500 = 1 − C(1, 500)/C(1000, 500) = 1 − 0
    // k = n = 1000 > c = 999: no way for all 1000 to succeed
    expect(result.values[999]!.value).toBe(0);
    // pass^1 = 999/1000
    expect(result.values[0]!.value).toBe(0.999);
  });

  it("is refused, with the reason, when trials inherit state or share a unit", () => {
    expect(passK([task("a", 10, 10), task("b", 10, 0, { inheritedState: "internal" })])).toEqual({
      available: false,
      reason: 'trials of task b carry inherited state "internal": an earlier run could change them, so they are not independent trials',
    });
    expect(passK([task("a", 10, 10, { inheritedState: "public" })]).available).toBe(false);
    expect(passK([task("a", 4, 2, { analysisUnits: 2 })])).toEqual({
      available: false,
      reason: "trials of task a are connected: 4 trials in 2 analysis units",
    });
    expect(passK([])).toEqual({ available: false, reason: "no trials" });
  });
});

describe("tasks from trials", () => {
  it("count trials, successes, distinct units and the worst inherited state per task", () => {
    const trials: Trial[] = [
      { taskId: "t1", unitId: "u1", success: true, inheritedState: "none" },
      { taskId: "t1", unitId: "u2", success: false, inheritedState: "public" },
      { taskId: "t2", unitId: "u3", success: true, inheritedState: "internal" },
      { taskId: "t2", unitId: "u3", success: true, inheritedState: "none" },
    ];
    expect(tasksFromTrials(trials)).toEqual([
      { taskId: "t1", trials: 2, successes: 1, analysisUnits: 2, inheritedState: "public" },
      { taskId: "t2", trials: 2, successes: 2, analysisUnits: 1, inheritedState: "internal" },
    ]);
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { byTaskNumber, groundTruthFileSchema, groundTruthTraces } from "./ground-truth";
import { parseTraceSelector, SelectorError } from "./trace-schemas";

const file = groundTruthFileSchema.parse(JSON.parse(readFileSync("lib/testing/fixtures/agentdojo/ground_truth_v1.2.1.json", "utf8")));

describe("ground-truth traces", () => {
  it("keeps every task, its calls in order and the state-changing marks", () => {
    const rows = groundTruthTraces(file);
    expect(rows.filter((r) => r.kind === "user")).toHaveLength(97);
    const t3 = rows.find((r) => r.suite === "banking" && r.task === "user_task_3")!;
    expect(t3.calls.map((c) => [c.function, c.stateChanging])).toEqual([
      ["get_most_recent_transactions", false],
      ["send_money", true],
    ]);
    expect(t3).toMatchObject({ callCount: 2, stateChangingCount: 1, benchmarkVersion: "v1.2.1" });
    // banking user_task_15 (read by hand): update_user_info, then get_scheduled_transactions, update_scheduled_transaction, get_most_recent_transactions, send_money
    expect(rows.find((r) => r.suite === "banking" && r.task === "user_task_15")!.stateChangingCount).toBe(3);
  });

  it("orders user tasks by number, before injection tasks", () => {
    expect(["injection_task_1", "user_task_10", "user_task_2", "injection_task_0"].sort(byTaskNumber)).toEqual([
      "user_task_2",
      "user_task_10",
      "injection_task_0",
      "injection_task_1",
    ]);
  });
});

describe("--traces", () => {
  it("reads a suite, a list of tasks, or a list of ids", () => {
    expect(parseTraceSelector("ground-truth:banking")).toEqual({ suite: "banking" });
    expect(parseTraceSelector("banking/user_task_3, banking/user_task_4")).toEqual({
      tasks: ["banking/user_task_3", "banking/user_task_4"],
    });
    const id = "0b5d7b0e-3a5f-4c1e-9d1e-2f6b8a7c9d10";
    expect(parseTraceSelector(id)).toEqual({ ids: [id] });
  });

  it("names what is wrong", () => {
    expect(() => parseTraceSelector("ground-truth:shopping")).toThrow(SelectorError);
    expect(() => parseTraceSelector("ground-truth:shopping")).toThrow(
      /traceSelection.suite must be one of banking, slack, travel, workspace/,
    );
    expect(() => parseTraceSelector("user_task_3")).toThrow(/a task must be suite\/task_id/);
    expect(() => parseTraceSelector("banking/user_task_3,banking/user_task_3")).toThrow(/must not repeat/);
  });
});

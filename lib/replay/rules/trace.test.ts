import { describe, expect, it } from "vitest";
import { replayConfigSchema } from "./config";
import { PAPER_TRACE, routedWrites, traceSchema } from "./trace";

describe("routedWrites", () => {
  it("routes the paper's one write to banking.send_money, as before", () => {
    expect(routedWrites(PAPER_TRACE).map((w) => [w.tracePosition, w.key])).toEqual([[1, "banking.send_money"]]);
  });
  it("gives each of several state-changing calls its own key, in trace order", () => {
    const trace = traceSchema.parse({
      suite: "banking",
      taskId: "banking/user_task_15",
      calls: [
        { function: "update_user_info", args: { street: "1234 Elm Street" } },
        { function: "get_scheduled_transactions", args: {} },
        { function: "update_scheduled_transaction", args: { id: 7, recipient: "CA133012400231215421872" } },
        { function: "send_money", args: { amount: 10 } },
        { function: "send_money", args: { amount: 20 } },
      ],
    });
    expect(routedWrites(trace).map((w) => [w.tracePosition, w.key])).toEqual([
      [0, "banking.update_user_info"],
      [2, "banking.update_scheduled_transaction"],
      [3, "banking.send_money.p3"],
      [4, "banking.send_money.p4"],
    ]);
  });
  it("follows the trace's own marks where it has them (a library trace)", () => {
    const trace = traceSchema.parse({
      suite: "slack",
      taskId: "slack/x",
      calls: [
        { function: "get_webpage", args: {}, stateChanging: true },
        { function: "send_direct_message", args: {}, stateChanging: false },
      ],
    });
    expect(routedWrites(trace).map((w) => w.key)).toEqual(["slack.get_webpage"]);
  });
  it("refuses a trace with no state-changing call", () => {
    const parsed = traceSchema.safeParse({
      suite: "banking",
      taskId: "banking/user_task_1",
      calls: [{ function: "get_most_recent_transactions", args: { n: 100 } }],
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(/at least one state-changing call/);
  });
});

describe("the default config", () => {
  it("replays exactly the paper's one trace", () => {
    expect(replayConfigSchema.parse({}).traces).toEqual([PAPER_TRACE]);
    expect(replayConfigSchema.safeParse({ traces: [PAPER_TRACE, PAPER_TRACE] }).success).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import { DEFAULT_RESTART_POLICY, NO_CRASHES, decideRestart, type CrashHistory, type RestartDecision } from "./restart-policy";

const policy = DEFAULT_RESTART_POLICY;

/** Crashes at the given times, each run started `ranMs` before its exit; the decision after each. */
function crashes(times: number[], ranMs = 100, start: CrashHistory = NO_CRASHES): RestartDecision[] {
  const decisions: RestartDecision[] = [];
  let history = start;
  for (const exitAtMs of times) {
    const decision = decideRestart(history, { startedAtMs: exitAtMs - ranMs, exitAtMs }, policy);
    decisions.push(decision);
    history = decision.history;
  }
  return decisions;
}

describe("decideRestart", () => {
  it("restarts a crashed child with a backoff that doubles while its crashes stay inside the window", () => {
    const decisions = crashes([1_000, 2_000, 3_000, 4_000]);
    expect(decisions.map((d) => d.state)).toEqual(["restarting", "restarting", "restarting", "restarting"]);
    expect(decisions.map((d) => d.delayMs)).toEqual([250, 500, 1_000, 2_000]);
  });

  it("reports a child crashed at the crash limit within the window, and leaves it down for the long pause", () => {
    const fifth = crashes([1_000, 2_000, 3_000, 4_000, 5_000]).at(-1)!;
    expect(fifth).toEqual({
      state: "crashed",
      delayMs: policy.crashedPauseMs,
      history: { crashesAtMs: [1_000, 2_000, 3_000, 4_000, 5_000], crashed: true },
    });
  });

  it("forgets crashes older than the window", () => {
    const spread = crashes([0, 20_000, 40_000, 70_000, 90_000]);
    // At 90 s the crashes at 0 s and 20 s are out of the 60 s window: three remain.
    expect(spread.at(-1)).toMatchObject({ state: "restarting", delayMs: 1_000, history: { crashesAtMs: [40_000, 70_000, 90_000] } });
  });

  it("sends a crashed child that fails again soon after its pause straight back to crashed", () => {
    const crashed = crashes([1_000, 2_000, 3_000, 4_000, 5_000]).at(-1)!.history;
    const retryExit = 5_000 + policy.crashedPauseMs + 2_000;
    // Its earlier crashes are outside the window by then; having been crashed is what counts.
    expect(crashes([retryExit], 1_500, crashed)[0]).toMatchObject({ state: "crashed", delayMs: policy.crashedPauseMs });
  });

  it("starts afresh for a child that ran a whole window before it exited, crashed or not", () => {
    const crashed = crashes([1_000, 2_000, 3_000, 4_000, 5_000]).at(-1)!.history;
    expect(crashes([400_000], policy.crashWindowMs, crashed)[0]).toEqual({
      state: "restarting",
      delayMs: 250,
      history: { crashesAtMs: [400_000], crashed: false },
    });
    const busy = crashes([1_000, 2_000, 3_000]).at(-1)!.history;
    expect(crashes([4_000], policy.crashWindowMs + 1, busy)[0]).toMatchObject({ state: "restarting", delayMs: 250 });
  });
});

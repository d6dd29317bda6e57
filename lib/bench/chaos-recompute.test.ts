import { describe, expect, it } from "vitest";
import { formatRecomputeRounds, recomputeWaitMessage, type RecomputeRound, type RecomputeState } from "./chaos-recompute";

const state = (overrides: Partial<RecomputeState> = {}): RecomputeState => ({
  runsDone: 0,
  runsTotal: 200_000,
  computed: false,
  applied: false,
  chunks: 0,
  job: { attempts: 1, maxAttempts: 25, locked: true, lastError: null },
  runningStatementS: 512,
  ...overrides,
});

const round = (overrides: Partial<RecomputeRound> & Pick<RecomputeRound, "round">): RecomputeRound => ({
  runs: 200_000,
  killedAtRunsDone: 100_000,
  runsTotal: 200_000,
  killedWorkers: 2,
  appliedAfterKillMs: 9_100,
  stalled: null,
  equalsRule: true,
  leftoverResults: 0,
  ...overrides,
});

describe("recomputeWaitMessage", () => {
  it("says which wait ran out, how long it was, and where the recompute stood", () => {
    expect(recomputeWaitMessage(2, { kind: "kill", sharePercent: 54 }, 600_000, state())).toBe(
      "recompute round 2: waited 600 s after the version was saved for 54% of its runs to be computed (the moment to kill), in vain: " +
        "0 of 200,000 runs computed, 0 chunks committed, not applied; its job at attempt 1 of 25, held by a worker; a statement of it running for 512 s",
    );
    expect(
      recomputeWaitMessage(
        1,
        { kind: "apply" },
        600_000,
        state({
          runsDone: 100_000,
          chunks: 2,
          job: { attempts: 2, maxAttempts: 25, locked: false, lastError: "Error: killed\n    at …" },
          runningStatementS: null,
        }),
      ),
    ).toBe(
      "recompute round 1: not applied within 600 s of the kill: 100,000 of 200,000 runs computed, 2 chunks committed, not applied; " +
        "its job at attempt 2 of 25, held by none (last error: Error: killed); no statement of it running",
    );
  });

  it("tells a version applied before the moment to kill from a wait that ran out", () => {
    expect(
      recomputeWaitMessage(
        3,
        { kind: "kill", sharePercent: 70 },
        4_000,
        state({ runsDone: 200_000, chunks: 4, computed: true, applied: true, job: null, runningStatementS: null }),
      ),
    ).toBe(
      "recompute round 3: the version was applied before 70% of its runs were seen computed, so no worker was killed: " +
        "200,000 of 200,000 runs computed, 4 chunks committed (every chunk), applied; no job queued for it; no statement of it running",
    );
  });
});

describe("formatRecomputeRounds", () => {
  it("prints each round's seconds from the kill to the version applied, its stall, and the target met or not", () => {
    const stalled = "recompute round 2: waited 600 s after the version was saved …";
    expect(
      formatRecomputeRounds([
        round({ round: 1 }),
        round({ round: 2, killedAtRunsDone: null, appliedAfterKillMs: null, stalled, equalsRule: null }),
        round({ round: 3, appliedAfterKillMs: 24_000 }),
      ]).split("\n"),
    ).toEqual([
      "| round | computed at the kill | applied after the kill | every run equal to the rule | results left |",
      "|---|---:|---:|---|---:|",
      "| 1 | 100,000/200,000 | 9.1 s | yes | 0 |",
      "| 2 | not killed | never | - | 0 |",
      "| 3 | 100,000/200,000 | 24.0 s | yes | 0 |",
      stalled,
      "target: the version applied within 20 s of the kill: round 1 9.1 s (met), round 2 never (NOT met), round 3 24.0 s (NOT met)",
    ]);
  });
});

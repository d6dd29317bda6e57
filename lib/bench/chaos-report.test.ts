import { describe, expect, it } from "vitest";
import { chaosReport, faultKindOf, faultProgressOf, formatChaosTable, type RoundResult } from "./chaos-report";

const round = (overrides: Partial<RoundResult> & Pick<RoundResult, "round">): RoundResult => ({
  kind: faultKindOf(overrides.round),
  target: "replay worker 1",
  atMs: 4_000,
  recoveredMs: 3_000,
  state: "completed",
  table2Exact: true,
  mismatches: [],
  expectedRuns: 3_600,
  storedRuns: 3_600,
  distinctKeys: 3_600,
  environmentFailures: 0,
  voidedServiceAttempts: 0,
  voidedLateAttempts: 0,
  failedChecks: [],
  wallMs: 12_000,
  ...overrides,
});

describe("bench:chaos rules", () => {
  it("cycles through the three faults", () => {
    expect([1, 2, 3, 4, 5, 6, 10].map(faultKindOf)).toEqual([
      "kill-worker",
      "kill-service",
      "restart-postgres",
      "kill-worker",
      "kill-service",
      "restart-postgres",
      "kill-worker",
    ]);
  });
  it("puts every fault strictly inside the grid", () => {
    expect(faultProgressOf(0)).toBeCloseTo(0.1);
    expect(faultProgressOf(0.999)).toBeLessThan(0.9);
  });
});

describe("chaosReport", () => {
  it("counts the rounds that met the target and sums what was lost, doubled and failed", () => {
    const report = chaosReport([
      round({ round: 1 }),
      round({ round: 2, table2Exact: false, state: "failed", environmentFailures: 4, failedChecks: ["every_run_recorded_once"] }),
      // A completed round missing two keys and holding one of them twice: 2 lost, 1 duplicate.
      round({ round: 3, storedRuns: 3_599, distinctKeys: 3_598, recoveredMs: null }),
      // An unfinished round's missing runs are not "lost" (it never ended), but duplicates still count.
      round({ round: 4, state: "unfinished", table2Exact: false, storedRuns: 1_001, distinctKeys: 1_000 }),
    ]);
    expect(report).toMatchObject({
      rounds: 4,
      completedRounds: 2,
      table2ExactRounds: 2,
      lostRuns: 2,
      duplicateRuns: 2,
      environmentFailures: 4,
    });
    expect(report.faults).toEqual([
      { round: 1, kind: "kill-worker", atMs: 4_000, recoveredMs: 3_000 },
      { round: 2, kind: "kill-service", atMs: 4_000, recoveredMs: 3_000 },
      { round: 3, kind: "restart-postgres", atMs: 4_000, recoveredMs: null },
      { round: 4, kind: "kill-worker", atMs: 4_000, recoveredMs: 3_000 },
    ]);
  });

  it("prints one row a round, the totals and the failed checks", () => {
    const table = formatChaosTable(
      chaosReport([
        round({ round: 1 }),
        round({
          round: 2,
          state: "failed",
          table2Exact: false,
          mismatches: ["snapshot.successes: 199, expected 200"],
          failedChecks: ["no_operation_left_pending"],
          voidedServiceAttempts: 7,
        }),
        round({
          round: 3,
          state: "unfinished",
          table2Exact: false,
          mismatches: ["snapshot.trials: 197, expected 200"],
          storedRuns: 3_554,
          distinctKeys: 3_554,
        }),
      ]),
    );
    expect(table.split("\n")).toEqual([
      "| round | fault | target | at (ms) | recovered (ms) | state | Table 2 exact | lost | duplicate | env. failures | voided (service/late) | wall (s) |",
      "|---|---|---|---|---|---|---|---|---|---|---|---|",
      "| 1 | kill-worker | replay worker 1 | 4000 | 3000 | completed | yes | 0 | 0 | 0 | 0/0 | 12.0 |",
      "| 2 | kill-service | replay worker 1 | 4000 | 3000 | failed | no | 0 | 0 | 0 | 7/0 | 12.0 |",
      "| 3 | restart-postgres | replay worker 1 | 4000 | 3000 | unfinished | no | - | 0 | 0 | 0/0 | 12.0 |",
      "",
      "rounds 3, completed 1, Table 2 exact 1, lost runs 0, duplicate runs 0, environment failures 0",
      "round 2: failed checks: no_operation_left_pending",
      "round 2: Table 2 mismatch: snapshot.successes: 199, expected 200",
      "round 3: unfinished: 3554 of 3600 runs stored when the round gave up",
    ]);
  });
});

/** bench:chaos's rules and figures (scripts/bench-chaos.ts is the shell that runs the rounds). */
export const FAULT_KINDS = ["kill-worker", "kill-service", "restart-postgres"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Round 1 kills a worker, round 2 the service, round 3 restarts PostgreSQL, round 4 kills a worker again, ... */
export const faultKindOf = (round: number): FaultKind => FAULT_KINDS[(round - 1) % FAULT_KINDS.length]!;

/** The fault lands once this share of the grid's runs is stored: uniform in [0.1, 0.9), so always during the grid. */
export const faultProgressOf = (random: number) => 0.1 + 0.8 * random;

export interface RoundResult {
  round: number;
  kind: FaultKind;
  /** What was hit: a worker's name, the service, PostgreSQL. */
  target: string;
  /** From the enqueue of the round's grid to the fault. */
  atMs: number;
  /** From the fault to the part answering again (a heartbeat of the new worker, the service's /healthz, SELECT 1); null if it never did. */
  recoveredMs: number | null;
  /** The experiment's final state (completed, failed) or "unfinished" when the round gave up waiting. */
  state: string;
  /** Table 2 from the stored runs equals what the grid predicts (the paper's Table 2 for the paper's grid). */
  table2Exact: boolean;
  /** Where it does not (table2Mismatches). */
  mismatches: string[];
  expectedRuns: number;
  storedRuns: number;
  /** Distinct natural keys (condition, schedule, delay, repetition, role) among the stored runs. */
  distinctKeys: number;
  /** Runs stored as environment failures (a unit out of retries under the predeclared rule). */
  environmentFailures: number;
  /** Attempts voided and retried, kept as evidence: after a service failure, or because the harness was late. */
  voidedServiceAttempts: number;
  voidedLateAttempts: number;
  failedChecks: string[];
  wallMs: number;
}

export interface ChaosReport {
  rounds: number;
  faults: Array<{ round: number; kind: FaultKind; atMs: number; recoveredMs: number | null }>;
  /** Rounds whose experiment ended completed (every implementation check passed). */
  completedRounds: number;
  table2ExactRounds: number;
  /** Expected runs minus distinct stored keys, summed over the completed rounds. */
  lostRuns: number;
  /** Stored runs beyond one per natural key, summed over every round. */
  duplicateRuns: number;
  environmentFailures: number;
  details: RoundResult[];
}

export function chaosReport(results: RoundResult[]): ChaosReport {
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const completed = results.filter((r) => r.state === "completed");
  return {
    rounds: results.length,
    faults: results.map(({ round, kind, atMs, recoveredMs }) => ({ round, kind, atMs, recoveredMs })),
    completedRounds: completed.length,
    table2ExactRounds: results.filter((r) => r.table2Exact).length,
    lostRuns: sum(completed.map((r) => r.expectedRuns - r.distinctKeys)),
    duplicateRuns: sum(results.map((r) => r.storedRuns - r.distinctKeys)),
    environmentFailures: sum(results.map((r) => r.environmentFailures)),
    details: results,
  };
}

/** The printed table: one row a round, then the totals. */
export function formatChaosTable(report: ChaosReport): string {
  const header = [
    "round",
    "fault",
    "target",
    "at (ms)",
    "recovered (ms)",
    "state",
    "Table 2 exact",
    "lost",
    "duplicate",
    "env. failures",
    "voided (service/late)",
    "wall (s)",
  ];
  const rows = report.details.map((r) => [
    String(r.round),
    r.kind,
    r.target,
    String(Math.round(r.atMs)),
    r.recoveredMs === null ? "never" : String(Math.round(r.recoveredMs)),
    r.state,
    r.table2Exact ? "yes" : "no",
    // An unfinished round's missing runs are not lost (lostRuns counts completed rounds): its line below says how far it got.
    r.state === "unfinished" ? "-" : String(r.expectedRuns - r.distinctKeys),
    String(r.storedRuns - r.distinctKeys),
    String(r.environmentFailures),
    `${r.voidedServiceAttempts}/${r.voidedLateAttempts}`,
    (r.wallMs / 1000).toFixed(1),
  ]);
  const lines = [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`, ...rows.map((row) => `| ${row.join(" | ")} |`)];
  lines.push(
    "",
    `rounds ${report.rounds}, completed ${report.completedRounds}, Table 2 exact ${report.table2ExactRounds}, lost runs ${report.lostRuns}, duplicate runs ${report.duplicateRuns}, environment failures ${report.environmentFailures}`,
  );
  for (const r of report.details) {
    if (r.state === "unfinished") {
      lines.push(`round ${r.round}: unfinished: ${r.distinctKeys} of ${r.expectedRuns} runs stored when the round gave up`);
      continue;
    }
    if (r.failedChecks.length) lines.push(`round ${r.round}: failed checks: ${r.failedChecks.join(", ")}`);
    for (const mismatch of r.mismatches) lines.push(`round ${r.round}: Table 2 mismatch: ${mismatch}`);
  }
  return lines.join("\n");
}

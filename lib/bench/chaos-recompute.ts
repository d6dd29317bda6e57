// bench:chaos's killed-recompute rounds (scripts/bench-chaos.ts runs them): what a round measured,
// where its recompute stood when a wait ran out, and the printed table with its target.
import { z } from "zod";
import type { Db } from "../db/prisma";
import { onlyRowOf } from "../db/rows";
import { jobOfKey } from "../jobs/queue";
import { recomputePolicyJobKey } from "../evaluations/policy-recompute/job";

/** The target printed beside each round (never asserted): the version applied within this of the kill. */
export const APPLIED_AFTER_KILL_TARGET_MS = 20_000;

export interface RecomputeRound {
  round: number;
  runs: number;
  /** Runs computed when every worker was killed; null when the round never got to the kill. */
  killedAtRunsDone: number | null;
  runsTotal: number;
  killedWorkers: number;
  /** From the kill to the version applied; null when it was not applied within the wait. */
  appliedAfterKillMs: number | null;
  /** Why the round stopped waiting (recomputeWaitMessage), or null. */
  stalled: string | null;
  /** Every run's finality equal to the rule under the new version; null when it was never applied. */
  equalsRule: boolean | null;
  leftoverResults: number;
}

/** Where a recompute stood: its progress row, its chunks, its job, and how long a statement on its chunks has run. */
export interface RecomputeState {
  runsDone: number;
  runsTotal: number;
  computed: boolean;
  applied: boolean;
  chunks: number;
  job: { attempts: number; maxAttempts: number; locked: boolean; lastError: string | null } | null;
  runningStatementS: number | null;
}

const count = (n: number) => n.toLocaleString("en-US");

function stateText(state: RecomputeState): string {
  const job = state.job
    ? `its job at attempt ${state.job.attempts} of ${state.job.maxAttempts}, ${state.job.locked ? "held by a worker" : "held by none"}${
        state.job.lastError ? ` (last error: ${state.job.lastError.split("\n")[0]!.slice(0, 200)})` : ""
      }`
    : "no job queued for it";
  const statement =
    state.runningStatementS === null ? "no statement of it running" : `a statement of it running for ${state.runningStatementS} s`;
  return (
    `${count(state.runsDone)} of ${count(state.runsTotal)} runs computed, ${state.chunks} chunks committed` +
    `${state.computed ? " (every chunk)" : ""}, ${state.applied ? "applied" : "not applied"}; ${job}; ${statement}`
  );
}

/**
 * Why a round stopped waiting, as it was: before the kill (the share to kill at not reached within the
 * wait after the version was saved, or the version applied first), or after it (not applied within the wait).
 */
export function recomputeWaitMessage(
  round: number,
  wait: { kind: "kill"; sharePercent: number } | { kind: "apply" },
  waitedMs: number,
  state: RecomputeState,
): string {
  const waited = Math.round(waitedMs / 1000);
  if (wait.kind === "apply") return `recompute round ${round}: not applied within ${waited} s of the kill: ${stateText(state)}`;
  if (state.applied)
    return `recompute round ${round}: the version was applied before ${wait.sharePercent}% of its runs were seen computed, so no worker was killed: ${stateText(state)}`;
  return `recompute round ${round}: waited ${waited} s after the version was saved for ${wait.sharePercent}% of its runs to be computed (the moment to kill), in vain: ${stateText(state)}`;
}

/** The recompute of `version`'s state now (RecomputeState). */
export async function recomputeState(db: Db, evaluationId: string, version: number): Promise<RecomputeState> {
  const row = onlyRowOf(
    z.object({
      runs_done: z.number(),
      runs_total: z.number(),
      computed: z.boolean(),
      applied: z.boolean(),
      chunks: z.number(),
      running_s: z.number().nullable(),
    }),
    await db.$queryRaw`
      SELECT r.runs_done, r.runs_total, r.computed, r.applied_at IS NOT NULL AS applied,
             (SELECT count(*)::int FROM evaluation_recompute_chunks c WHERE c.evaluation_id = r.evaluation_id AND c.version = r.version) AS chunks,
             (SELECT round(extract(epoch FROM max(now() - a.query_start)))::int FROM pg_stat_activity a
               WHERE a.state = 'active' AND a.pid <> pg_backend_pid() AND a.query LIKE '%evaluation_recompute%') AS running_s
        FROM evaluation_policy_recomputes r
       WHERE r.evaluation_id = ${evaluationId}::uuid AND r.version = ${version}`,
  );
  return {
    runsDone: row.runs_done,
    runsTotal: row.runs_total,
    computed: row.computed,
    applied: row.applied,
    chunks: row.chunks,
    job: await jobOfKey(db, recomputePolicyJobKey(evaluationId)),
    runningStatementS: row.running_s,
  };
}

/** The rounds' table, each one's stall, and the target. */
export function formatRecomputeRounds(rounds: readonly RecomputeRound[]): string {
  const seconds = (ms: number | null) => (ms === null ? "never" : `${(ms / 1000).toFixed(1)} s`);
  const lines = [
    "| round | computed at the kill | applied after the kill | every run equal to the rule | results left |",
    "|---|---:|---:|---|---:|",
    ...rounds.map(
      (r) =>
        `| ${r.round} | ${r.killedAtRunsDone === null ? "not killed" : `${count(r.killedAtRunsDone)}/${count(r.runsTotal)}`} | ${seconds(r.appliedAfterKillMs)} | ${
          r.equalsRule === null ? "-" : r.equalsRule ? "yes" : "NO"
        } | ${r.leftoverResults} |`,
    ),
    ...rounds.flatMap((r) => (r.stalled ? [r.stalled] : [])),
  ];
  const verdicts = rounds.map(
    (r) =>
      `round ${r.round} ${seconds(r.appliedAfterKillMs)} ${r.appliedAfterKillMs !== null && r.appliedAfterKillMs <= APPLIED_AFTER_KILL_TARGET_MS ? "(met)" : "(NOT met)"}`,
  );
  lines.push(`target: the version applied within ${APPLIED_AFTER_KILL_TARGET_MS / 1000} s of the kill: ${verdicts.join(", ")}`);
  return lines.join("\n");
}

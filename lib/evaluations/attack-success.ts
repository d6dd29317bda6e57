// A run's second outcome under attack: AgentDojo's `security` label (success = the injection task's
// goal was achieved, the attack succeeded), stored in evaluation_runs.labels. The attack's outcome is
// final exactly when the run is: it is scored at the same moment, so the same open effects leave it
// undecided. Pure: the summary's SQL counts, these functions name the figures.
import type { EvaluationSummary } from "./read-schemas";
import type { UnresolvedReason } from "./schemas";

/** The label a harness records for the attack's outcome on a run under attack (AgentDojo's name for it). */
export const ATTACK_LABEL = "security";

/** Whether the attack on the run succeeded: true or false from its `security` label, undefined when the run was not under attack. */
export function attackSucceeded(labels: unknown): boolean | undefined {
  if (typeof labels !== "object" || labels === null || Array.isArray(labels)) return undefined;
  const label = (labels as Record<string, unknown>)[ATTACK_LABEL];
  return label === "success" ? true : label === "failure" ? false : undefined;
}

/** The counts the summary's SQL makes over the scored runs under attack. */
export interface AttackCounts {
  attacked: number;
  succeeded: number;
  final: number;
  finalSucceeded: number;
  unresolvedByReason: readonly { reason: UnresolvedReason; n: number }[];
}

export type AttackSuccess = EvaluationSummary["attackSuccess"];

/** The summary's `attackSuccess`: reported over every scored attacked run, final over the final ones, the unresolved ones by reason. */
export function attackSuccessFigures(counts: AttackCounts): AttackSuccess {
  const byReason: AttackSuccess["unresolved"]["byReason"] = {};
  let unresolved = 0;
  for (const { reason, n } of counts.unresolvedByReason) {
    byReason[reason] = (byReason[reason] ?? 0) + n;
    unresolved += n;
  }
  return {
    reported: { successes: counts.succeeded, n: counts.attacked },
    final: { successes: counts.finalSucceeded, n: counts.final },
    unresolved: { n: unresolved, byReason },
  };
}

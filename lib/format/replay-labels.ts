import { RUN_CLASSIFICATIONS, type RunClassification } from "../replay/rules/classification";
import type { FinalityPolicy, SeparationCondition } from "../replay/rules/config";
import { ratio } from "./numbers";

/** How the web pages name each finality policy (the paper's Table 2 wording). */
export const POLICY_LABELS: Record<FinalityPolicy, string> = {
  snapshot: "snapshot",
  reconciliation: "reconciliation",
  verified_cancellation: "verified cancellation",
  sync_snapshot: "synchronous control: snapshot",
  sync_reconciliation: "synchronous control: reconciliation",
  sync_verified_cancellation: "synchronous control: verified cancellation",
};

/** How the web pages name each separation condition (the paper's Table 2 wording). */
export const CONDITION_LABELS: Record<SeparationCondition, string> = {
  shared: "shared state",
  namespaced: "namespaced state",
  verified_reset: "verified reset",
  no_write: "no-write control",
  b_before_a: "B before A",
  grouped: "grouped analysis",
};

export const CLASSIFICATION_LABELS: Record<RunClassification, string> = {
  completed: "completed",
  agent_failure: "agent failure",
  protocol_stop: "protocol stop",
  environment_failure: "environment failure",
  missing_evidence: "missing evidence",
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** "1 schedule × delays {0, 25} ms × 2 repetitions": the grid an experiment replayed. */
export function describeGrid(config: { schedules: number; delaysMs: readonly number[]; repetitions: number }): string {
  return `${plural(config.schedules, "schedule")} × delays {${config.delaysMs.join(", ")}} ms × ${plural(config.repetitions, "repetition")}`;
}

/** Milliseconds with two decimals, as the paper reports measured delays. */
export function formatMs(ms: number): string {
  return `${ms.toFixed(2)} ms`;
}

/** A mean score with two decimals; `n/a` when no B run was scored. */
export function formatMeanScore(mean: number | null): string {
  return mean === null ? "n/a" : mean.toFixed(2);
}

/** Run accounting: every classification, including those with no run, as n/N of all stored runs. */
export function accountingRows(
  classifications: Record<RunClassification, number>,
): { classification: RunClassification; label: string; runs: string }[] {
  const total = RUN_CLASSIFICATIONS.reduce((sum, c) => sum + classifications[c], 0);
  return RUN_CLASSIFICATIONS.map((classification) => ({
    classification,
    label: CLASSIFICATION_LABELS[classification],
    runs: ratio(classifications[classification], total),
  }));
}

/** "k/M passed", and whether every check passed. No checks at all is not a pass. */
export function checksTally(checks: readonly { passed: boolean }[]): { text: string; allPassed: boolean } {
  const passed = checks.filter((c) => c.passed).length;
  return { text: `${ratio(passed, checks.length)} passed`, allPassed: checks.length > 0 && passed === checks.length };
}

/** Run accounting (docs/replay.md, Run accounting and environment failures): every started run keeps one of these, none is dropped. */
export const RUN_CLASSIFICATIONS = ["completed", "agent_failure", "protocol_stop", "environment_failure", "missing_evidence"] as const;
export type RunClassification = (typeof RUN_CLASSIFICATIONS)[number];

/**
 * Whether a run counts in a rate's denominator: environment failures do not (the replay's own lag
 * voided them, so there is no label to judge); the run accounting still counts every run.
 */
export const countedInDenominator = (classification: RunClassification): boolean => classification !== "environment_failure";

/** `countedInDenominator` in SQL for a text column, rendered from it: the classifications it counts. */
export const countedSql = (column = "classification") =>
  `${column} IN (${RUN_CLASSIFICATIONS.filter(countedInDenominator)
    .map((c) => `'${c}'`)
    .join(", ")})`;

export function classifyRun(input: {
  /** The service was unreachable or broke its contract, after the predeclared retries. */
  environmentFailure: boolean;
  /** A tool call the trace made was rejected by the service as invalid (the agent's fault). */
  agentError: boolean;
  /** The run stopped at a declared budget before its trace finished. */
  budgetReached: boolean;
  /** Every operation the run started has system evidence of how it ended. */
  evidenceComplete: boolean;
}): RunClassification {
  if (input.environmentFailure) return "environment_failure";
  if (input.agentError) return "agent_failure";
  if (input.budgetReached) return "protocol_stop";
  if (!input.evidenceComplete) return "missing_evidence";
  return "completed";
}

import { isDeepStrictEqual } from "node:util";
import type { FinalityPolicy } from "./config";

export type Label = "success" | "failure";
export type TerminalLabel = Label | "unresolved";

/** A run succeeds when the service holds exactly the value its task expects. */
export function labelFor(held: unknown, expected: unknown): Label {
  return held !== undefined && held !== null && isDeepStrictEqual(held, expected) ? "success" : "failure";
}

/** The label a finality policy records: snapshot keeps the endpoint's, the others the terminal one. */
export function recordedLabel(policy: FinalityPolicy, endpoint: Label, terminal: TerminalLabel): TerminalLabel {
  return policy === "snapshot" || policy === "sync_snapshot" ? endpoint : terminal;
}

/** An endpoint label and a terminal label disagree when they differ, an unresolved terminal included. */
export function disagrees(endpoint: Label | null, terminal: TerminalLabel | null): boolean {
  return endpoint !== null && terminal !== null && endpoint !== terminal;
}

/** `disagrees` in SQL over two text columns, for queries that count in the database (rules-sql.db.test.ts checks they agree). */
export const disagreesSql = (endpoint = "endpoint_label", terminal = "terminal_label") =>
  `(${endpoint} IS NOT NULL AND ${terminal} IS NOT NULL AND ${endpoint} <> ${terminal})`;

export function scoreOf(label: TerminalLabel | null): 0 | 1 | null {
  if (label === "success") return 1;
  if (label === "failure") return 0;
  return null; // unresolved is not a failure and not a score
}

/**
 * A task with several state-changing calls succeeds only when the service holds every one of its
 * expected values: one label over all its writes' keys.
 */
export function labelForAll(reads: ReadonlyArray<{ held: unknown; expected: unknown }>): Label {
  return reads.length > 0 && reads.every((r) => labelFor(r.held, r.expected) === "success") ? "success" : "failure";
}

/**
 * The paper's finality rule for several effects: a label is final only when every one of its
 * operations is terminal. Until then it is unresolved, whatever the values held.
 */
export function terminalLabelForAll(resolved: readonly boolean[], label: Label): TerminalLabel {
  return resolved.length > 0 && resolved.every(Boolean) ? label : "unresolved";
}

/** Final at scoring: every operation had settled (its terminal time known) no later than the scoring read. */
export function finalAtScoring(settledAtMs: ReadonlyArray<number | null>, scoredAtMs: number): boolean {
  return settledAtMs.length > 0 && settledAtMs.every((at) => at !== null && at <= scoredAtMs);
}

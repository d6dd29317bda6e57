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

export function scoreOf(label: TerminalLabel | null): 0 | 1 | null {
  if (label === "success") return 1;
  if (label === "failure") return 0;
  return null; // unresolved is not a failure and not a score
}

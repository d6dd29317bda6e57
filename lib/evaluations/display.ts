// The audit's words as the pages say them. Pure.
import type { InheritedState, UnresolvedReason } from "./schemas";

/** Why a label is not final, in a reader's words (docs/evaluations.md, Rule 1). */
export const REASON_LABELS: Record<UnresolvedReason, string> = {
  pending_at_scoring: "pending at scoring, no evidence yet",
  resolved_after_scoring: "resolved, but after the run was scored",
  never_resolved: "the harness said it ended; no system evidence came",
  unverifiable: "unverifiable (no handle, or evidence that could not tell)",
  unclassified_tool: "the policy does not name the tool",
};

export const INHERITED_LABELS: Record<InheritedState, string> = {
  none: "none",
  internal: "internal (another run's state)",
  public: "public (through a public surface)",
};

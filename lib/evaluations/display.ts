// The audit's words as the pages say them. Pure.
import type { InheritedState, ToolClass, UnresolvedReason } from "./schemas";

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

/** What a tool's class means for its effect's finality: the explanation a "why unresolved" needs. */
export const CLASS_EXPLANATIONS: Record<ToolClass, string> = {
  read_only: "read-only: it changes nothing, so it never holds a label open",
  sync_confirmed: "synchronous and confirmed: a terminal status it returned by scoring ends it",
  async_handle: "asynchronous: acknowledged before it is applied, so only evidence checked by its handle ends it",
  external:
    "external: it acts outside what the run's record can confirm, so only resolution evidence recorded for it ends it (a status the harness reported is not enough)",
  unclassified: "unclassified: the effect policy does not name it, so it counts as open until it is classed",
};

/**
 * Whether a run's start is a recorded time: an importer gives a log without any time the Unix epoch
 * as its start (its other times count from it), which must never read as "1 Jan 1970".
 */
export const timesRecorded = (startedAt: Date): boolean => startedAt.getTime() !== 0;

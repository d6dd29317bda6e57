// The evaluation contract's shared vocabularies and field rules: effect classes and statuses, labels,
// finalities, unresolved reasons and finality bases, the text and time fields, the batch limits.
// Names are a contract: harnesses write them. The bodies built from them are effect-policy-schema.ts,
// run-record-schema.ts and evaluation-requests.ts (docs/evaluations.md).
import { z } from "zod";
import { pgTime } from "../http/storable";
import { INHERITED_STATES, type InheritedState } from "../replay/rules/inherited-state";

/** The default threshold: a score counts as success at full credit (Inspect's `C`, `true`, 1). */
export const DEFAULT_SCORE_THRESHOLD = 1;

/** How a tool's effects end (docs/evaluations.md, The effect policy). A tool the policy does not name is `unclassified`, never read-only. */
export const EFFECT_CLASSES = ["read_only", "sync_confirmed", "async_handle", "external"] as const;
export type EffectClass = (typeof EFFECT_CLASSES)[number];
export type ToolClass = EffectClass | "unclassified";

/** What a harness can see of a call it ran (a live run's effect_status, an OTLP span's). */
export const EFFECT_STATUSES = ["pending", "completed", "failed", "cancelled", "unknown"] as const;
export type EffectStatus = (typeof EFFECT_STATUSES)[number];
/**
 * What the harness saw of an effect when the run was scored. `not_executed`: the harness never ran
 * the call (AgentDojo's last turn, left when its loop stopped; an Inspect call with no result after a
 * limit): it leaves nothing open and touches no surface.
 */
export const STATUSES_AT_SCORING = [...EFFECT_STATUSES, "not_executed"] as const;
export type StatusAtScoring = (typeof STATUSES_AT_SCORING)[number];

/** How an effect ended, by system evidence; `cancelled` means confirmed cancelled (unable to commit), `unknown` that the check could not tell. */
export const RESOLUTION_STATUSES = ["completed", "failed", "cancelled", "unknown"] as const;
export type ResolutionStatus = (typeof RESOLUTION_STATUSES)[number];

export const LABELS = ["success", "failure"] as const;
/** `unscored`: the harness recorded no score (no scoring time, no endpoint label); such a run is in no rate's population. */
export const FINALITIES = ["final", "unresolved", "unscored"] as const;
export type Finality = (typeof FINALITIES)[number];

/** Why a run's label is not final: its first open relevant effect's reason (lib/evaluations/finality.ts). */
export const UNRESOLVED_REASONS = [
  "pending_at_scoring",
  "resolved_after_scoring",
  "never_resolved",
  "unverifiable",
  "unclassified_tool",
] as const;
export type UnresolvedReason = (typeof UNRESOLVED_REASONS)[number];

/**
 * What a final run's finality rests on (finality.ts finalityBasis): evidence recorded for its effects
 * (`recorded_evidence`); the harness's own word, under a design the run declares (`harness_design`);
 * the policy's class alone, a read-only tool or a sync_confirmed tool's returned status
 * (`policy_class`); or nothing to wait for, no effect that ran (`no_effects`).
 */
export const FINALITY_BASES = ["recorded_evidence", "harness_design", "policy_class", "no_effects"] as const;
export type FinalityBasis = (typeof FINALITY_BASES)[number];

/** What a run could have inherited from other runs (one order, lib/replay/rules/inherited-state.ts). */
export { INHERITED_STATES, type InheritedState };

export const MAX_RUNS_PER_BATCH = 1_000;
/** A batch of 1,000 runs with their effects and touches fits well inside this. */
export const MAX_INGEST_BODY_BYTES = 16 * 1024 * 1024;

/** A text field of the evaluation contract: trimmed, not empty, at most `max` characters. */
export const text = (field: string, max = 500) =>
  z.string(`${field} must be text`).trim().min(1, `${field} must not be empty`).max(max, `${field} must be at most ${max} characters`);
export const timeMessage = (field: string) => `${field} must be an ISO-8601 time with a zone, e.g. 2026-12-01T10:00:00.000Z`;
/** A time field of the evaluation contract: ISO-8601 with a zone, one PostgreSQL can store. */
export const time = (field: string) => pgTime(field, timeMessage(field));

export const EVALUATION_NAME_MAX = 200;
export const EVALUATION_DESCRIPTION_MAX = 4_000;

// The evaluation's read boundaries (issue 10, docs/evaluations.md): the list queries and the answers
// of the read routes (the summary, the detail, a run as the lists show it). One schema each, shared
// by the API routes, the typed client and the pages; the bodies the routes accept are in ./schemas.ts.
import { z } from "zod";
import { cursorOf, oneOf, optional, pageSize } from "../http/pagination";
import { bigintDigits, pgTime } from "../http/storable";
import { INHERITED_STATES, type InheritedState } from "../replay/rules/inherited-state";
import {
  EVALUATION_NAME_MAX,
  FINALITIES,
  FINALITY_BASES,
  LABELS,
  UNRESOLVED_REASONS,
  effectPolicySchema,
  text,
  type Finality,
  type FinalityBasis,
  type UnresolvedReason,
} from "./schemas";

/** Evaluations are listed newest first: the keyset position is (created_at, id). */
export const evaluationCursorSchema = z.tuple([pgTime("cursor", "cursor"), z.uuid()]);
export const evaluationListQuerySchema = z.strictObject({
  name: optional(text("name", EVALUATION_NAME_MAX)),
  cursor: optional(cursorOf(evaluationCursorSchema)),
  limit: pageSize,
});
export type EvaluationListQuery = z.infer<typeof evaluationListQuerySchema>;

const count = z.number().int().min(0);
/** n out of N, the population named by the key that holds it. */
const ratio = z.object({ successes: count, n: count });

/** A policy version saved and not yet applied: its recompute's progress (runs computed of the scored runs). */
export const pendingPolicySchema = z.object({
  version: z.number().int().min(1),
  runsDone: count,
  runsTotal: count,
  requestedAt: z.string(),
});
export type PendingPolicy = z.infer<typeof pendingPolicySchema>;

/** GET /api/v1/evaluations/{id}/summary: every figure an SQL aggregate over the stored audit (lib/evaluations/summary.ts). */
/** One label's outcome over the scored runs that carry it: reported, final-only, the unresolved ones by reason. */
const labelOutcomeSchema = z.object({
  reported: ratio,
  final: ratio,
  unresolved: z.object({ n: count, byReason: z.partialRecord(z.enum(UNRESOLVED_REASONS), count) }),
});

export const evaluationSummarySchema = z.object({
  evaluationId: z.uuid(),
  /** The effect-policy version every figure below was computed under. */
  effectPolicyVersion: z.number().int().min(1),
  /** A newer version saved and being recomputed, with its progress in scored runs; its figures replace these all at once when it is applied. */
  pendingPolicy: pendingPolicySchema.nullable().default(null),
  /** Every stored run, unscored ones included. */
  runs: count,
  /** Runs the harness recorded no score for (finality unscored): in no rate below, counted here on their own. */
  unscored: count,
  /** All scored runs, as the harness recorded them at the endpoint. */
  reported: ratio,
  /** Final runs only (every relevant effect terminal at scoring). */
  final: ratio,
  unresolved: z.object({ n: count, byReason: z.partialRecord(z.enum(UNRESOLVED_REASONS), count), byTool: z.record(z.string(), count) }),
  /** Runs whose terminal label differs from the endpoint label, of the runs that have a terminal label. */
  disagreements: z.object({ n: count, of: count }),
  /** The true success rate over all scored runs lies between these: unresolved counted as failures, then as successes. */
  bounds: z.object({ lower: ratio, upper: ratio }),
  /** Run rows and the analysis units they form (connected components). */
  units: z.object({ runRows: count, analysisUnits: count, largest: count }),
  /** Runs that received another run's state (inherited_state internal or public), of all runs. */
  exposures: z.object({ n: count, of: count }),
  inheritedState: z.record(z.enum(INHERITED_STATES), count),
  /** What the final runs rest on (lib/evaluations/finality.ts finalityBasis), by basis: each final run in one. */
  finalBasis: z.partialRecord(z.enum(FINALITY_BASES), count).default({}),
  /** The harness designs stored runs declare: each with its runs and the statement it rests on. */
  harnessDesigns: z.array(z.object({ design: z.string(), harness: z.string(), statement: z.string(), runs: count })).default([]),
  /**
   * The attack's outcome on the scored runs under attack (those with a `security` label, AgentDojo's: success = the injection
   * task's goal was achieved), under the same finality rule as the main label: reported over all of them, final over the final
   * ones, the unresolved ones by reason. All zero when no run was under attack (and in summaries taken before it was counted).
   */
  attackSuccess: labelOutcomeSchema.default(() => ({
    reported: { successes: 0, n: 0 },
    final: { successes: 0, n: 0 },
    unresolved: { n: 0, byReason: {} },
  })),
  /**
   * Every label the runs declare beside the endpoint label (an importer's or the ingest API's `labels`), by name, each as
   * `attackSuccess` gives `security` (which is here too): over the scored runs that carry it, under the main label's finality.
   */
  outcomes: z.record(z.string(), labelOutcomeSchema).default({}),
  /**
   * Every scorer the runs were scored by (Inspect's `scores`), the labelling one(s) first: its successes of the runs whose value
   * reads as a number (at or above the run's threshold; as the harness reported them, finality aside), the runs whose value is no
   * label (a dict, a list, text), and its metrics as the harness computed them for each log (`metrics`: the one log's, null when
   * several logs reported it). Empty when no run holds scorer values.
   */
  scorers: z
    .array(
      z.object({
        name: z.string(),
        /** It labelled the runs of at least one log. */
        labelling: z.boolean(),
        successes: count,
        n: count,
        unreadable: count,
        metrics: z.record(z.string(), z.number()).nullable(),
        metricsByLog: z.array(z.object({ source: z.string(), metrics: z.record(z.string(), z.number()) })),
      }),
    )
    .default([]),
  /**
   * The model calls' tokens over every run (the runs' sums added up): input and output over the `runsWithTokens` runs whose
   * calls report them, of all `runs`; `modelCalls` over the `runsWithModelCalls` runs that recorded any.
   */
  tokens: z
    .object({ input: count, output: count, runsWithTokens: count, modelCalls: count, runsWithModelCalls: count, runs: count })
    .default({ input: 0, output: 0, runsWithTokens: 0, modelCalls: 0, runsWithModelCalls: 0, runs: 0 }),
});
export type EvaluationSummary = z.infer<typeof evaluationSummarySchema>;

/** GET /api/v1/evaluations/{id}: the evaluation and its current effect policy. */
export const evaluationDetailSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  harness: z.string().nullable(),
  benchmark: z.string().nullable(),
  createdBy: z.string().nullable(),
  createdAt: z.string(),
  effectPolicyVersion: z.number().int(),
  effectPolicy: effectPolicySchema,
  /** The version saved after the applied one and being recomputed, with its policy (an edit starts from it); null when none. */
  pendingPolicy: z
    .object({ version: z.number().int().min(1), policy: effectPolicySchema })
    .nullable()
    .default(null),
  /** How long a live run may stay open before it is stored unscored. */
  liveRunTimeoutSeconds: z.number().int(),
  /** A run's score at or above which it is a success, for scores sent without a label; null: none declared. */
  scoreThreshold: z.number().nullable(),
  /** The evaluator's own labels as success or failure; null: none declared. */
  labelMap: z.record(z.string(), z.enum(LABELS)).nullable().default(null),
});
export type EvaluationDetail = z.infer<typeof evaluationDetailSchema>;

/** GET /api/v1/evaluations/{id}/runs: by finality, reason, the open effect's tool, analysis unit and inherited state; in stored order, paged by run id. */
export const evaluationRunListQuerySchema = z.strictObject({
  finality: optional(oneOf("finality", FINALITIES)),
  reason: optional(oneOf("reason", UNRESOLVED_REASONS)),
  tool: optional(text("tool", 200)),
  unit: optional(bigintDigits("unit", "a run id")),
  inherited: optional(oneOf("inherited", INHERITED_STATES)),
  cursor: optional(cursorOf(z.tuple([bigintDigits("cursor")]))),
  limit: pageSize,
});
export type EvaluationRunListQuery = z.infer<typeof evaluationRunListQuerySchema>;

/** One run of an evaluation as the lists show it. */
export interface EvaluationRunListItem {
  id: string;
  externalId: string;
  taskId: string;
  attempt: number | null;
  startedAt: Date;
  /** null only when unscored. */
  scoredAt: Date | null;
  endpointLabel: "success" | "failure" | null;
  unscoredReason: string | null;
  terminalLabel: "success" | "failure" | null;
  finality: Finality;
  unresolvedReason: UnresolvedReason | null;
  unresolvedEffectId: string | null;
  unresolvedTool: string | null;
  /** What a final run rests on (null unless final). */
  finalityBasis: FinalityBasis | null;
  /** The harness design the run declares (lib/evaluations/harness-design.ts), or null. */
  harnessDesign: string | null;
  disagreement: boolean;
  analysisUnit: string | null;
  inheritedState: InheritedState;
  /** Its model calls' tokens summed (null when none of its calls reports them), and how many calls it recorded (null: none recorded). */
  inputTokens: number | null;
  outputTokens: number | null;
  modelCallCount: number | null;
}

// The evaluation's read boundaries (docs/evaluations.md): the list queries and the answers
// of the read routes (the summary, the detail, a run as the lists show it). One schema each, shared
// by the API routes, the typed client and the pages; the bodies the routes accept are in ../evaluation-requests.ts and ../run-record-schema.ts.
import { z } from "zod";
import { cursorOf, oneOf, optional, pageSize, wholeNumber } from "../../http/pagination";
import { bigintDigits, pgTime } from "../../http/storable";
import { INHERITED_STATES, type InheritedState } from "../../replay/rules/inherited-state";
import {
  EVALUATION_NAME_MAX,
  FINALITIES,
  FINALITY_BASES,
  LABELS,
  UNRESOLVED_REASONS,
  text,
  type Finality,
  type FinalityBasis,
  type UnresolvedReason,
} from "../vocabulary";
import { effectPolicySchema } from "../effect-policy-schema";

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

/** GET /api/v1/evaluations/{id}/summary: every figure an SQL aggregate over the stored audit (lib/evaluations/read/summary.ts). */
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

/** The runs list's sorts: stored order (run id), or a column's value with the run id breaking ties. */
export const RUN_SORTS = ["stored", "start", "duration", "score", "label", "finality", "unit", "toolCalls", "openEffects"] as const;
export type RunSort = (typeof RUN_SORTS)[number];
export const SORT_ORDERS = ["asc", "desc"] as const;
/** The endpoint label a run was scored with; `none`: unscored. */
export const RUN_LABEL_FILTERS = ["success", "failure", "none"] as const;
/** Text search reads trigrams: a shorter text could not use its index. */
export const SEARCH_MIN_CHARACTERS = 3;

const wholeBound = (field: string) => optional(wholeNumber(field));
const decimal = (field: string) =>
  optional(
    z
      .string(`${field} must be a number`)
      .regex(/^-?\d{1,15}(\.\d{1,15})?$/, `${field} must be a number, e.g. 0.5`)
      .transform(Number),
  );
/** A start bound: an ISO time with its zone, or a date (its first instant in UTC). */
const startBound = (field: string) =>
  optional(
    z.preprocess(
      (value) => (typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00.000Z` : value),
      pgTime(field, `${field} must be a date (YYYY-MM-DD) or an ISO time with a zone, e.g. 2026-12-01T10:00:00Z`),
    ),
  );

/**
 * The keyset position of a page's last run: the sort it was made under, that run's sort value (as PostgreSQL's text of it,
 * null when the run has none) and its id.
 */
export const runListCursorSchema = z.tuple([z.enum(RUN_SORTS), z.string().max(100).nullable(), bigintDigits("cursor")]);
export type RunListCursor = z.infer<typeof runListCursorSchema>;

/**
 * GET /api/v1/evaluations/{id}/runs: searched by text (`q`: transcript, tool calls, task, id), filtered by each column, sorted by
 * one (`sort`, `order`; stored order by default), paged by a keyset cursor of that sort.
 */
export const evaluationRunListQuerySchema = z
  .strictObject({
    q: optional(text("q", 200).pipe(z.string().min(SEARCH_MIN_CHARACTERS, `q must be at least ${SEARCH_MIN_CHARACTERS} characters`))),
    sort: optional(oneOf("sort", RUN_SORTS)).transform((sort) => sort ?? "stored"),
    order: optional(oneOf("order", SORT_ORDERS)).transform((order) => order ?? "asc"),
    finality: optional(oneOf("finality", FINALITIES)),
    reason: optional(oneOf("reason", UNRESOLVED_REASONS)),
    tool: optional(text("tool", 200)),
    label: optional(oneOf("label", RUN_LABEL_FILTERS)),
    unit: optional(bigintDigits("unit", "a run id")),
    inherited: optional(oneOf("inherited", INHERITED_STATES)),
    startedFrom: startBound("startedFrom"),
    startedTo: startBound("startedTo"),
    durationMin: wholeBound("durationMin"),
    durationMax: wholeBound("durationMax"),
    scoreMin: decimal("scoreMin"),
    scoreMax: decimal("scoreMax"),
    toolCallsMin: wholeBound("toolCallsMin"),
    toolCallsMax: wholeBound("toolCallsMax"),
    openEffectsMin: wholeBound("openEffectsMin"),
    openEffectsMax: wholeBound("openEffectsMax"),
    cursor: optional(cursorOf(runListCursorSchema)),
    limit: pageSize,
  })
  .superRefine((query, ctx) => {
    for (const [min, max] of [
      ["durationMin", "durationMax"],
      ["scoreMin", "scoreMax"],
      ["toolCallsMin", "toolCallsMax"],
      ["openEffectsMin", "openEffectsMax"],
    ] as const) {
      const [low, high] = [query[min], query[max]];
      if (low !== undefined && high !== undefined && low > high)
        ctx.addIssue({ code: "custom", path: [min], message: `${min} must not exceed ${max}` });
    }
    if (query.startedFrom && query.startedTo && Date.parse(query.startedFrom) > Date.parse(query.startedTo))
      ctx.addIssue({ code: "custom", path: ["startedFrom"], message: "startedFrom must not be after startedTo" });
    if (query.cursor && query.cursor[0] !== query.sort)
      ctx.addIssue({
        code: "custom",
        path: ["cursor"],
        message: `cursor belongs to the sort ${query.cursor[0]}, not ${query.sort}: start again without it`,
      });
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
  /** The unit's label within the evaluation: U1, U2, … numbered by each unit's first run in stored order (null without a unit). */
  unitLabel: string | null;
  inheritedState: InheritedState;
  /** Its model calls' tokens summed (null when none of its calls reports them), and how many calls it recorded (null: none recorded). */
  inputTokens: number | null;
  outputTokens: number | null;
  modelCallCount: number | null;
  /** From its start to its end (or its scoring when no end was recorded), in milliseconds; null when neither was recorded. */
  durationMs: number | null;
  score: number | null;
  /** Tool calls its record holds. */
  toolCallCount: number;
  /** Effects its record says were still pending or unknown at scoring. */
  openEffects: number;
}

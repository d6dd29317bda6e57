// The evaluation API's request boundaries besides the run records: creating an evaluation, changing
// how it reads scores, its exclusion rule and live-run timeout, the route paths, and a late resolution
// or a reset's canary check appended to a stored run. One schema each, shared by the routes, the API
// client, the CLI and the pages.
import { z } from "zod";
import { changeExclusionRuleBodySchema, exclusionRuleDeclarationSchema } from "../statistics/exclusion-rule";
import { effectPolicySchema } from "./effect-policy-schema";
import { canaryCheckSchema, resolutionSchema } from "./run-record-schema";
import { EVALUATION_DESCRIPTION_MAX, EVALUATION_NAME_MAX, LABELS, text, time } from "./vocabulary";

/** An evaluation's rule: a run whose record gives no class is completed, so completed runs must be kept. */
export const evaluationRuleDeclarationSchema = exclusionRuleDeclarationSchema.refine((rule) => rule.classes.completed === "keep", {
  path: ["classes", "completed"],
  message:
    "classes.completed must be keep for an evaluation: every ingested run without a runClass is completed, so any other treatment would drop or fail them all",
});

/** PUT /api/v1/evaluations/{id}/exclusion-rule: the change body with the evaluation's rule. */
export const evaluationRuleChangeBodySchema = changeExclusionRuleBodySchema.extend({ rule: evaluationRuleDeclarationSchema });

/** How long a live run (./live/) may stay open before it is stored unscored, unless the evaluation declares otherwise. */
export const DEFAULT_LIVE_RUN_TIMEOUT_SECONDS = 3_600;
/** A week: a declared timeout beyond it is a mistake, and its expiry job would outlive most deployments. */
export const MAX_LIVE_RUN_TIMEOUT_SECONDS = 7 * 24 * 3_600;
export const liveRunTimeoutSecondsSchema = z
  .int("liveRunTimeoutSeconds must be a whole number of seconds")
  .min(1, "liveRunTimeoutSeconds must be at least 1")
  .max(MAX_LIVE_RUN_TIMEOUT_SECONDS, `liveRunTimeoutSeconds must be at most ${MAX_LIVE_RUN_TIMEOUT_SECONDS} (a week)`);

/** Most labels one labelMap may name. */
export const MAX_LABEL_MAP_ENTRIES = 100;

/**
 * How an evaluator's own labels read as success or failure (OpenTelemetry's gen_ai.evaluation.result
 * carries free text, e.g. `relevant`): `{LABEL: "success" | "failure"}`, labels compared trimmed and
 * in lower case. Given on the evaluation, or per trace by the resource attribute `boundary_lab.label_map`.
 */
export const labelMapSchema = z
  .record(
    text("labelMap label", 200).transform((label) => label.toLowerCase()),
    z.enum(LABELS, "a labelMap value must be success or failure"),
  )
  .refine((map) => Object.keys(map).length <= MAX_LABEL_MAP_ENTRIES, `labelMap may name at most ${MAX_LABEL_MAP_ENTRIES} labels`);
export type LabelMap = z.infer<typeof labelMapSchema>;

/** POST /api/v1/evaluations */
export const createEvaluationBodySchema = z.strictObject({
  name: text("name", EVALUATION_NAME_MAX),
  description: z
    .string("description must be text")
    .max(EVALUATION_DESCRIPTION_MAX, `description must be at most ${EVALUATION_DESCRIPTION_MAX} characters`)
    .optional(),
  harness: text("harness", 200).optional(),
  benchmark: text("benchmark", 200).optional(),
  effectPolicy: effectPolicySchema.optional(),
  /** The declared exclusion rule (stored as version 1, then frozen); absent: the default rule. */
  exclusionRule: evaluationRuleDeclarationSchema.optional(),
  /** How long a live run may stay open before it is stored unscored (default 3,600). */
  liveRunTimeoutSeconds: liveRunTimeoutSecondsSchema.optional(),
  /** A run's score at or above which it is a success, for scores sent without a label (OTLP's gen_ai.evaluation.result). */
  scoreThreshold: z.number("scoreThreshold must be a number").finite("scoreThreshold must be a finite number").optional(),
  /** The evaluator's own labels as success or failure, for scores sent with a free-text label (OTLP's gen_ai.evaluation.result). */
  labelMap: labelMapSchema.optional(),
});
export type CreateEvaluationBody = z.infer<typeof createEvaluationBodySchema>;

/** PATCH /api/v1/evaluations/{id}: how scores sent without a success/failure label are read; null clears one. */
export const updateEvaluationScoringBodySchema = z
  .strictObject({
    scoreThreshold: z.number("scoreThreshold must be a number").finite("scoreThreshold must be a finite number").nullable().optional(),
    labelMap: labelMapSchema.nullable().optional(),
  })
  .refine((body) => body.scoreThreshold !== undefined || body.labelMap !== undefined, {
    message: "give scoreThreshold or labelMap (null clears one)",
    path: ["labelMap"],
  });
export type UpdateEvaluationScoringBody = z.infer<typeof updateEvaluationScoringBodySchema>;

export const evaluationIdSchema = z.strictObject({ id: z.uuid("id must be an evaluation id (a UUID)") });
export const effectResolutionPathSchema = z.strictObject({
  id: z.uuid("id must be an evaluation id (a UUID)"),
  effectId: text("effectId", 200),
});

/** POST /api/v1/evaluations/{id}/effects/{effectId}/resolutions: appended, never overwriting. `runExternalId` is needed only when several runs use the effectId. */
export const postResolutionBodySchema = resolutionSchema.extend({ runExternalId: text("runExternalId", 200).optional() });
export type PostResolutionBody = z.infer<typeof postResolutionBodySchema>;

/**
 * POST /api/v1/evaluations/{id}/runs/{externalId}/resets/canary: a canary check of one of the run's
 * resets, appended. `surface` names the reset; `at` its time, needed only when the run reset that
 * surface more than once.
 */
export const postResetCanaryBodySchema = canaryCheckSchema.extend({ at: time("at").optional() });
export type PostResetCanaryBody = z.infer<typeof postResetCanaryBodySchema>;
export const evaluationRunPathSchema = z.strictObject({
  id: z.uuid("id must be an evaluation id (a UUID)"),
  externalId: text("externalId", 200),
});

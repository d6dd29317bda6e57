// The experiment's boundaries: its id in paths, the create body, and the list's query. One schema
// each, shared by the API routes and the pages.
import { z } from "zod";
import { exclusionRuleDeclarationSchema } from "../statistics/exclusion-rule";
import { cursorOf, oneOf, optional, pageSize } from "../http/pagination";
import { pgTime } from "../http/storable";
import { canaryConfigSchema } from "../canary/config";
import { replayConfigSchema } from "../replay/rules/config";
import { traceSelectionSchema } from "../traces/trace-schemas";

/** `interrupted`: an in-process replay (`npm run replay`) stopped mid-grid; its stored runs are kept. */
export const EXPERIMENT_STATES = ["queued", "running", "completed", "failed", "cancelled", "interrupted"] as const;
export type ExperimentState = (typeof EXPERIMENT_STATES)[number];

export const experimentIdSchema = z.strictObject({ id: z.uuid("id must be an experiment id (a UUID)") });

export const EXPERIMENT_NAME_MAX = 200;
export const EXPERIMENT_NOTES_MAX = 4_000;

/** A name and notes people find the experiment by; both optional (the list then shows its creation time). */
export const experimentLabelsShape = {
  name: z
    .string("name must be text")
    .trim()
    .min(1, "name must not be empty")
    .max(EXPERIMENT_NAME_MAX, `name must be at most ${EXPERIMENT_NAME_MAX} characters`)
    .optional(),
  notes: z.string("notes must be text").max(EXPERIMENT_NOTES_MAX, `notes must be at most ${EXPERIMENT_NOTES_MAX} characters`).optional(),
};

/**
 * PATCH /api/v1/experiments/{id}: a new name and/or notes, each with the create form's limits; null
 * clears it, a field left out stays as it is.
 */
export const experimentLabelsPatchSchema = z.strictObject({
  name: experimentLabelsShape.name.unwrap().nullable().optional(),
  notes: experimentLabelsShape.notes.unwrap().nullable().optional(),
});
export type ExperimentLabelsPatch = z.infer<typeof experimentLabelsPatchSchema>;

/**
 * POST /api/v1/experiments: the replay config (every field defaults to the paper's grid), optionally a
 * name and notes, and the traces: `traces` as JSON, or `traceSelection` from the library (by suite,
 * by task, or ids), or neither (the paper's one trace).
 */
const replayBodySchema = replayConfigSchema.extend({
  ...experimentLabelsShape,
  // No default here: the route tells "not given" (the paper's trace, or the selection's) from given.
  traces: replayConfigSchema.shape.traces.unwrap().optional(),
  traceSelection: traceSelectionSchema.optional(),
  /** The declared exclusion rule (stored as version 1, then frozen); absent: the default rule. */
  exclusionRule: exclusionRuleDeclarationSchema.optional(),
});
const tracesOrSelection: [(body: { traces?: unknown; traceSelection?: unknown }) => boolean, { path: string[]; message: string }] = [
  (body) => !(body.traces && body.traceSelection),
  { path: ["traceSelection"], message: "give traces or traceSelection, not both" },
];
export const createExperimentBodySchema = replayBodySchema.refine(...tracesOrSelection);
export type CreateExperimentBody = z.infer<typeof createExperimentBodySchema>;

export const EXPERIMENT_KINDS = ["replay", "canary"] as const;
export type ExperimentKind = (typeof EXPERIMENT_KINDS)[number];

/** The canary reset check (lib/canary/): its conditions and trials, and the same name and notes. */
export const createCanaryExperimentBodySchema = canaryConfigSchema.extend({ kind: z.literal("canary"), ...experimentLabelsShape });
export type CreateCanaryExperimentBody = z.infer<typeof createCanaryExperimentBodySchema>;

/**
 * POST /api/v1/experiments: `kind` chooses the body; without one it is the paper's replay, whose body
 * is exactly `createExperimentBodySchema`'s.
 */
export const createExperimentRequestSchema = z.preprocess(
  (body) => (body !== null && typeof body === "object" && !Array.isArray(body) && !("kind" in body) ? { ...body, kind: "replay" } : body),
  z.discriminatedUnion(
    "kind",
    [replayBodySchema.extend({ kind: z.literal("replay") }).refine(...tracesOrSelection), createCanaryExperimentBodySchema],
    {
      error: `kind must be one of ${EXPERIMENT_KINDS.join(", ")}`,
    },
  ),
);

/** Experiments are listed newest first: the keyset position is (created_at, id). */
export const experimentCursorSchema = z.tuple([pgTime("cursor", "cursor"), z.uuid()]);
export type ExperimentCursor = z.infer<typeof experimentCursorSchema>;

/** GET /api/v1/experiments: filtered by state and by a part of the name (case-insensitive). */
export const experimentListQuerySchema = z.strictObject({
  state: optional(oneOf("state", EXPERIMENT_STATES)),
  name: optional(
    z.string("name must be text").trim().min(1).max(EXPERIMENT_NAME_MAX, `name must be at most ${EXPERIMENT_NAME_MAX} characters`),
  ),
  cursor: optional(cursorOf(experimentCursorSchema)),
  limit: pageSize,
});
export type ExperimentListQuery = z.infer<typeof experimentListQuerySchema>;

// An evaluation's effect policy (which class each tool's effects are, and the surfaces its calls touch)
// and the boundary that changes it: PUT …/effect-policy's body, answer and edit conflict.
import { z } from "zod";
import { parseSurfaceTemplate } from "./surface-templates";
import { EFFECT_CLASSES, text, type EffectClass } from "./vocabulary";

/** Wildcards a tool pattern may hold: matching is linear in the name's length per part (policy.ts), and no real pattern needs more. */
export const MAX_PATTERN_WILDCARDS = 16;

/** A tool's name, or a pattern where `*` matches any run of characters (the longest matching pattern wins; an exact name beats any pattern). */
export const toolPatternSchema = text("tool name", 200).superRefine((pattern, ctx) => {
  const wildcards = pattern.split("*").length - 1;
  if (wildcards > MAX_PATTERN_WILDCARDS)
    ctx.addIssue({
      code: "custom",
      message: `a tool pattern may hold at most ${MAX_PATTERN_WILDCARDS} wildcards (*); this one holds ${wildcards}`,
    });
});

const effectClassSchema = z.enum(EFFECT_CLASSES, `an effect class must be one of ${EFFECT_CLASSES.join(", ")}`);

/** A surface template (surface-templates.ts): text with `{argument}` names, refused with why when its braces do not pair or a name is blank. */
const surfaceTemplateSchema = text("a surface template").superRefine((template, ctx) => {
  const parsed = parseSurfaceTemplate(template);
  if ("problem" in parsed)
    ctx.addIssue({ code: "custom", message: `a surface template's braces must pair around an argument's name: ${parsed.problem}` });
});

/** A class with the surfaces its calls touch, by templates over their arguments: `{"class": "sync_confirmed", "writes": "fs:{path}"}`. */
const toolSurfacesSchema = z.strictObject({
  class: effectClassSchema,
  reads: surfaceTemplateSchema.optional(),
  writes: surfaceTemplateSchema.optional(),
});
type ToolSurfaces = z.infer<typeof toolSurfacesSchema>;
export type ToolEntry = EffectClass | ToolSurfaces;

/**
 * A policy entry: a class, or an object with a class and templates. Dispatched on the value's type
 * rather than a union, so that a refusal names the entry's own field (`tools.write_file.writes`)
 * with its own message instead of the union's "Invalid input".
 */
export const toolEntrySchema = z.unknown().transform((value, ctx): ToolEntry => {
  const schema = typeof value === "object" && value !== null && !Array.isArray(value) ? toolSurfacesSchema : effectClassSchema;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  // Forwarded as they are (an unknown key stays unrecognized_keys, which parseInput names by its path).
  for (const issue of parsed.error.issues) ctx.addIssue(issue as z.core.$ZodRawIssue);
  return z.NEVER;
});

/**
 * `{tools: {NAME or PATTERN: CLASS or {class, reads?, writes?}}}`; every stored version is kept
 * (evaluation_effect_policies), each entry as it was sent.
 */
export const effectPolicySchema = z.strictObject({ tools: z.record(toolPatternSchema, toolEntrySchema) });
export type EffectPolicy = z.infer<typeof effectPolicySchema>;

/**
 * PUT /api/v1/evaluations/{id}/effect-policy: the policy, and the version it was edited from. With
 * `baseVersion` a change made meanwhile is refused (409 edit_conflict); without it the policy
 * applies whatever the current version is, as `{tools}` alone always did.
 */
export const setEffectPolicyBodySchema = effectPolicySchema.extend({
  baseVersion: z
    .int("baseVersion must be the version you edited from (a whole number)")
    .min(1, "baseVersion must be at least 1")
    .optional(),
});
export type SetEffectPolicyBody = z.infer<typeof setEffectPolicyBodySchema>;

/**
 * PUT …/effect-policy's answer: the version saved (or the latest, `unchanged`), the version every figure
 * is under until the new one is applied (`appliedVersion`), and the recompute's progress in scored runs
 * (null when nothing is pending). GET …/summary's `pendingPolicy` follows it until it is applied.
 */
export const setEffectPolicyAnswerSchema = z.object({
  version: z.number().int().min(1),
  unchanged: z.literal(true).optional(),
  appliedVersion: z.number().int().min(1),
  recompute: z.object({ runsDone: z.number().int(), runsTotal: z.number().int() }).nullable(),
});
export type SetEffectPolicyAnswer = z.infer<typeof setEffectPolicyAnswerSchema>;

/** The 409's `details` when baseVersion is stale: the current version with its policy, and the policy refused. */
export const effectPolicyConflictSchema = z.object({
  current: z.object({ version: z.number().int().min(1), policy: effectPolicySchema }),
  yours: effectPolicySchema,
});
export type EffectPolicyConflict = z.infer<typeof effectPolicyConflictSchema>;

// The parts of a statistics answer that experiments and evaluations share (docs/statistics.md's contract:
// `rates`, `units`, `passK`, `exclusionRule`, `sensitivity`, with these field names), one schema
// for the routes, the pages and the tests.
import { z } from "zod";
import { exclusionRuleSchema } from "./exclusion-rule";
import { VERDICTS } from "./sensitivity";

const count = z.number().int().min(0);
/** [lower, upper], or null when N = 0 (nothing observed, no interval). */
export const wilson95Schema = z.tuple([z.number(), z.number()]).readonly().nullable();

export const rateSchema = z.object({ name: z.string(), population: z.string(), n: count, N: count, wilson95: wilson95Schema });

const excludedSchema = z.object({ name: z.string(), n: count, N: count });

export const unitsSchema = z.object({
  /** Every stored run row, scored or not (the count the headline cards show). */
  runRows: count,
  /** The analysis units of every stored run: connected runs count once as one unit; every other run is its own. */
  analysisUnits: count,
  /** The analysis units with at least one row counted under the rule (`rows.N`): the G the effective N never exceeds. */
  countedUnits: count,
  /** Kish's design effect of `outcome` (docs/statistics.md); null without rows. */
  designEffect: z.number().nullable(),
  effectiveN: z.number(),
  outcome: z.string(),
  /** The rows-based figure: every row a separate trial. */
  rows: z.object({ n: count, N: count, wilson95: wilson95Schema }),
  /** Wilson on the effective size N / designEffect. */
  unitBasedWilson95: wilson95Schema,
});

export const passKSchema = z.discriminatedUnion("available", [
  z.object({ available: z.literal(false), reason: z.string() }),
  z.object({
    available: z.literal(true),
    values: z.array(z.object({ k: z.number().int().min(1), value: z.number(), passAtK: z.number() })),
  }),
]);

export const exclusionRuleAnswerSchema = z.object({
  version: z.number().int().min(1),
  hash: z.string(),
  canonical: z.string(),
  rule: exclusionRuleSchema,
  /** Who declared it, when and why, in words (the instant as ISO 8601). */
  declaredBy: z.string(),
  /** The same, in parts, for pages that show the instant in the reader's time. */
  declared: z.object({ at: z.string(), by: z.string().nullable(), reason: z.string(), note: z.string().nullable() }),
});

export const sensitivityRowSchema = z.object({
  measure: z.string(),
  rule: z.string(),
  n: count,
  N: count,
  rate: z.number().nullable(),
  wilson95: wilson95Schema,
  excluded: z.array(excludedSchema),
});

/** The declared target of a measure (the rule's `threshold`), judged under every rule of the sensitivity table. */
export const thresholdCheckSchema = z.object({
  measure: z.string(),
  threshold: z.number(),
  verdict: z.enum(VERDICTS),
  warning: z.string().nullable(),
});

export type ThresholdCheckAnswer = z.infer<typeof thresholdCheckSchema>;
export const ruleVersionSchema = z.object({
  version: z.number().int().min(1),
  hash: z.string(),
  canonical: z.string(),
  rule: exclusionRuleSchema,
  reason: z.string(),
  createdBy: z.string().nullable(),
  createdAt: z.string(),
});
/** One stored version, with who declared it (their email), when and why. */
export type RuleVersion = z.infer<typeof ruleVersionSchema>;

/** GET …/exclusion-rule: the current version and every version, newest first. */
export const ruleHistorySchema = z.object({ current: ruleVersionSchema, versions: z.array(ruleVersionSchema) });
export type RuleHistory = z.infer<typeof ruleHistorySchema>;

export type RateAnswer = z.infer<typeof rateSchema>;
export type UnitsAnswer = z.infer<typeof unitsSchema>;
export type PassKAnswer = z.infer<typeof passKSchema>;
export type ExclusionRuleAnswer = z.infer<typeof exclusionRuleAnswerSchema>;
export type SensitivityRowAnswer = z.infer<typeof sensitivityRowSchema>;

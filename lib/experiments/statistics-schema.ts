// GET /api/v1/experiments/{id}/statistics: the answer other tools read. `rates`, `units`, `passK`,
// `exclusionRule` and `sensitivity` (with these field names) are the contract of issue 12;
// `conditions` gives units and pass^k per policy or condition.
import { z } from "zod";
import { exclusionRuleSchema } from "../statistics/exclusion-rule";
import { INHERITED_STATES } from "../statistics/pass-k";

const count = z.number().int().min(0);
/** [lower, upper], or null when N = 0 (nothing observed, no interval). */
const wilson95 = z.tuple([z.number(), z.number()]).readonly().nullable();

export const rateSchema = z.object({ name: z.string(), population: z.string(), n: count, N: count, wilson95 });

const excludedSchema = z.object({ name: z.string(), n: count, N: count });

export const unitsSchema = z.object({
  runRows: count,
  /** Connected runs (a group any of whose runs inherited state) count once; the others one each. */
  analysisUnits: count,
  /** Kish's design effect of `outcome` (docs/statistics.md); null without scored rows. */
  designEffect: z.number().nullable(),
  effectiveN: z.number(),
  outcome: z.string(),
  /** The rows-based figure: every scored row a separate trial. */
  rows: z.object({ n: count, N: count, wilson95 }),
  /** Wilson on the effective size N / designEffect. */
  unitBasedWilson95: wilson95,
});

export const passKSchema = z.discriminatedUnion("available", [
  z.object({ available: z.literal(false), reason: z.string() }),
  z.object({ available: z.literal(true), values: z.array(z.object({ k: z.number().int().min(1), value: z.number(), passAtK: z.number() })) }),
]);

export const experimentStatisticsSchema = z.object({
  experimentId: z.string(),
  rates: z.array(rateSchema),
  units: unitsSchema,
  passK: passKSchema,
  conditions: z.array(z.object({ test: z.enum(["finality", "separation"]), condition: z.string(), inheritedState: z.enum(INHERITED_STATES), units: unitsSchema, passK: passKSchema })),
  exclusionRule: z.object({ version: z.number().int().min(1), hash: z.string(), canonical: z.string(), rule: exclusionRuleSchema, declaredBy: z.string() }),
  sensitivity: z.array(
    z.object({ measure: z.string(), rule: z.string(), n: count, N: count, rate: z.number().nullable(), wilson95, excluded: z.array(excludedSchema) }),
  ),
});
export type ExperimentStatistics = z.infer<typeof experimentStatisticsSchema>;

// GET /api/v1/experiments/{id}/statistics: the answer other tools read. `rates`, `units`, `passK`,
// `exclusionRule` and `sensitivity` (with these field names) are the contract of docs/statistics.md;
// `conditions` gives units and pass^k per policy or condition.
import { z } from "zod";
import {
  exclusionRuleAnswerSchema,
  passKSchema,
  rateSchema,
  sensitivityRowSchema,
  thresholdCheckSchema,
  unitsSchema,
} from "../statistics/answer-schema";
import { INHERITED_STATES } from "../replay/rules/inherited-state";

export const experimentStatisticsSchema = z.object({
  experimentId: z.string(),
  rates: z.array(rateSchema),
  units: unitsSchema,
  passK: passKSchema,
  conditions: z.array(
    z.object({
      test: z.enum(["finality", "separation"]),
      condition: z.string(),
      inheritedState: z.enum(INHERITED_STATES),
      units: unitsSchema,
      passK: passKSchema,
    }),
  ),
  exclusionRule: exclusionRuleAnswerSchema,
  sensitivity: z.array(sensitivityRowSchema),
  /** The rule's declared target, judged for each measure of `sensitivity` under every rule; empty without one. */
  thresholdChecks: z.array(thresholdCheckSchema),
});
export type ExperimentStatistics = z.infer<typeof experimentStatisticsSchema>;

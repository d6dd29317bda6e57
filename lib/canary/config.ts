import { z } from "zod";
import type { SeparationCondition } from "../replay/rules/config";

/**
 * The canary reset check (docs/replay.md, The canary reset check): the separation conditions whose key space the lab controls,
 * by the replay's own names, and the surfaces run B searches.
 */
export const CANARY_CONDITIONS = ["shared", "namespaced", "verified_reset"] as const satisfies readonly SeparationCondition[];
export type CanaryCondition = (typeof CANARY_CONDITIONS)[number];

/** What B can search over the service's HTTP API: every key's value, the operation list, the pending operations. */
export const CANARY_SURFACES = ["values", "operation_list", "pending_operations"] as const;
export type CanarySurface = (typeof CANARY_SURFACES)[number];

export const CANARY_MAX_TRIALS = 50;

/** A canary experiment's config: which conditions, and how many trials of each (a new random canary each). */
export const canaryConfigSchema = z.strictObject({
  conditions: z
    .array(z.enum(CANARY_CONDITIONS, `conditions must be some of ${CANARY_CONDITIONS.join(", ")}`))
    .min(1, "conditions must name at least one condition")
    .refine((list) => new Set(list).size === list.length, "conditions must not repeat")
    .default([...CANARY_CONDITIONS]),
  trials: z
    .int("trials must be a whole number")
    .min(1, "trials must be at least 1")
    .max(CANARY_MAX_TRIALS, `trials must be at most ${CANARY_MAX_TRIALS}`)
    .default(5),
});
export type CanaryConfig = z.infer<typeof canaryConfigSchema>;

/** The rows a finished canary experiment holds: one per condition, trial and surface. */
export function expectedCanaryResults(config: CanaryConfig): number {
  return config.conditions.length * config.trials * CANARY_SURFACES.length;
}

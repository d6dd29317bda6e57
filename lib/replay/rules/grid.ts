import type { FinalityPolicy, ReplayConfig, SeparationCondition } from "./config";

/** `trace` is the index of the unit's trace in the config's `traces` (0 for the paper's one trace). */
export type ReplayUnit =
  | { test: "finality"; trace: number; condition: FinalityPolicy; scheduleId: number; delayMs: number; repetition: number }
  | { test: "separation"; trace: number; condition: SeparationCondition; scheduleId: number; delayMs: number; repetition: number };

/** A grid and how many traces it replays (the paper's one when not said). */
export type GridConfig = Pick<ReplayConfig, "delaysMs" | "schedules" | "repetitions" | "finalityPolicies" | "separationConditions"> & {
  traces?: readonly unknown[];
};

/**
 * Every finality trial and separation pair of a grid, for each of its traces. Schedule ids are reused
 * across policies to match trials; they are identifiers, not random samples. Units are interleaved
 * across delays and conditions so that a bounded pool spreads the long and short waits evenly.
 */
export function gridUnits(config: GridConfig): ReplayUnit[] {
  const units: ReplayUnit[] = [];
  for (let trace = 0; trace < (config.traces?.length ?? 1); trace++) {
    for (let repetition = 1; repetition <= config.repetitions; repetition++) {
      for (let scheduleId = 1; scheduleId <= config.schedules; scheduleId++) {
        for (const delayMs of config.delaysMs) {
          for (const condition of config.finalityPolicies)
            units.push({ test: "finality", trace, condition, scheduleId, delayMs, repetition });
          for (const condition of config.separationConditions)
            units.push({ test: "separation", trace, condition, scheduleId, delayMs, repetition });
        }
      }
    }
  }
  return units;
}

/** The unit's own key space on the service: no two units share one (A and B of a pair are one unit). */
export function unitNamespace(prefix: string, unit: ReplayUnit, attempt: number): string {
  const base = `${prefix}/t${unit.trace}/${unit.test === "finality" ? "fin" : "sep"}/${unit.condition}/s${unit.scheduleId}/d${unit.delayMs}/r${unit.repetition}`;
  return attempt === 0 ? base : `${base}/retry${attempt}`;
}

export function unitGroupId(unit: ReplayUnit): string {
  return `t${unit.trace}:${unit.test}:${unit.condition}:s${unit.scheduleId}:d${unit.delayMs}:r${unit.repetition}`;
}

export function expectedRunCount(config: GridConfig): number {
  const cells = (config.traces?.length ?? 1) * config.schedules * config.delaysMs.length * config.repetitions;
  return cells * (config.finalityPolicies.length + 2 * config.separationConditions.length);
}

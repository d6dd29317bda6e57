import type { FinalityPolicy, ReplayConfig, SeparationCondition } from "./config";

export type ReplayUnit =
  | { test: "finality"; condition: FinalityPolicy; scheduleId: number; delayMs: number; repetition: number }
  | { test: "separation"; condition: SeparationCondition; scheduleId: number; delayMs: number; repetition: number };

/**
 * Every finality trial and separation pair of a grid. Schedule ids are reused across policies to
 * match trials; they are identifiers, not random samples. Units are interleaved across delays and
 * conditions so that a bounded pool spreads the long and short waits evenly.
 */
export function gridUnits(config: Pick<ReplayConfig, "delaysMs" | "schedules" | "repetitions" | "finalityPolicies" | "separationConditions">): ReplayUnit[] {
  const units: ReplayUnit[] = [];
  for (let repetition = 1; repetition <= config.repetitions; repetition++) {
    for (let scheduleId = 1; scheduleId <= config.schedules; scheduleId++) {
      for (const delayMs of config.delaysMs) {
        for (const condition of config.finalityPolicies) units.push({ test: "finality", condition, scheduleId, delayMs, repetition });
        for (const condition of config.separationConditions) units.push({ test: "separation", condition, scheduleId, delayMs, repetition });
      }
    }
  }
  return units;
}

/** The unit's own key space on the service: no two units share one (A and B of a pair are one unit). */
export function unitNamespace(prefix: string, unit: ReplayUnit, attempt: number): string {
  const base = `${prefix}/${unit.test === "finality" ? "fin" : "sep"}/${unit.condition}/s${unit.scheduleId}/d${unit.delayMs}/r${unit.repetition}`;
  return attempt === 0 ? base : `${base}/retry${attempt}`;
}

export function unitGroupId(unit: ReplayUnit): string {
  return `${unit.test}:${unit.condition}:s${unit.scheduleId}:d${unit.delayMs}:r${unit.repetition}`;
}

export function expectedRunCount(config: Parameters<typeof gridUnits>[0]): number {
  const cells = config.schedules * config.delaysMs.length * config.repetitions;
  return cells * (config.finalityPolicies.length + 2 * config.separationConditions.length);
}

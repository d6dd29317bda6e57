import { isDeepStrictEqual } from "node:util";
import type { InheritedState } from "./inherited-state";
import type { SeparationCondition } from "./config";
import type { SeparationEvidence } from "./records";

/**
 * Exposure: A's writes changed a value scored in B. The service says who wrote each entry B read at
 * scoring; the pair is exposed when any of them was one of A's operations (a trace with several
 * state-changing calls has one per key).
 */
export function isExposed(input: { scoredEntriesWrittenBy: ReadonlyArray<string | null>; aHandles: readonly string[] }): boolean {
  return input.scoredEntriesWrittenBy.some((by) => by !== null && input.aHandles.includes(by));
}

/** Whether A and B of a pair can reach the same service value under a condition. */
export function sharesKeySpace(condition: SeparationCondition): boolean {
  return condition !== "namespaced";
}

/** What a run could have inherited from earlier runs (docs/evaluations.md, Rule 2: separation): `internal` when another run's write could reach its scored value. */
export function inheritedStateFor(condition: SeparationCondition | "finality", role: "single" | "A" | "B"): InheritedState {
  if (role !== "B") return "none";
  // shared and grouped leave a route from A's pending write to B's value; the others block it or have nothing on it
  return condition === "shared" || condition === "grouped" ? "internal" : "none";
}

/**
 * The number of units an analysis treats as separate. Grouped analysis counts each connected
 * group once; every other condition counts run rows, which is only justified where no route connects them.
 */
export function analysisUnits(condition: SeparationCondition, runRows: number, groups: number): number {
  return condition === "grouped" ? groups : runRows;
}

/** A verified reset holds when the read-back is exactly B's initial value on each of the trace's keys, and nothing can still land. */
export function resetVerified(reset: SeparationEvidence["reset"], keys: readonly string[], valueB: unknown): boolean {
  return (
    reset !== null &&
    reset.pendingOperations === 0 &&
    reset.entries.length === keys.length &&
    keys.every((key) => reset.entries.some((entry) => entry.key === key && isDeepStrictEqual(entry.value, valueB)))
  );
}

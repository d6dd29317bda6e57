import { isDeepStrictEqual } from "node:util";
import type { InheritedState } from "../statistics/pass-k";
import type { SeparationCondition } from "./config";
import type { SeparationEvidence } from "./records";

/**
 * Exposure: A's write changed the value scored in B. The service says who wrote the entry B
 * read at scoring; exposure is when that was A's operation.
 */
export function isExposed(input: { scoredEntryWrittenBy: string | null; aHandle: string | null }): boolean {
  return input.aHandle !== null && input.scoredEntryWrittenBy === input.aHandle;
}

/** Whether A and B of a pair can reach the same service value under a condition. */
export function sharesKeySpace(condition: SeparationCondition): boolean {
  return condition !== "namespaced";
}

/** What a run could have inherited from earlier runs (seeds/002): `internal` when another run's write could reach its scored value. */
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

/** A verified reset holds when the read-back is exactly B's initial value and nothing can still land. */
export function resetVerified(reset: SeparationEvidence["reset"], key: string, valueB: unknown): boolean {
  return (
    reset !== null &&
    reset.pendingOperations === 0 &&
    reset.entries.length === 1 &&
    reset.entries[0]!.key === key &&
    isDeepStrictEqual(reset.entries[0]!.value, valueB)
  );
}

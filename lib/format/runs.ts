// How the runs and open-effects views name things. Pure, shared by pages and components.
import type { FinalityPolicy, SeparationCondition } from "../replay/rules/config";
import { CONDITION_LABELS, POLICY_LABELS } from "./replay-labels";

/** A policy or condition in the paper's Table 2 wording; an unknown one as stored. */
export function conditionLabel(condition: string): string {
  return POLICY_LABELS[condition as FinalityPolicy] ?? CONDITION_LABELS[condition as SeparationCondition] ?? condition;
}

/** A run by its place in the grid: "snapshot, 25 ms, schedule 1, repetition 2" (and "run B" for a pair's run). */
export function describeRun(run: { condition: string; delayMs: number; scheduleId: number; repetition: number; role: string }): string {
  const place = `${conditionLabel(run.condition)}, ${run.delayMs} ms, schedule ${run.scheduleId}, repetition ${run.repetition}`;
  return run.role === "single" ? place : `${place}, run ${run.role}`;
}

/** The first block of a uuid: enough to tell rows apart on screen (links carry the whole id). */
export const shortId = (id: string) => id.slice(0, 8);

/** A service-clock time to the microsecond, or "none". */
export const formatServiceMs = (ms: number | null) => (ms === null ? "none" : ms.toFixed(3));

/** How a page names an experiment: its name, or (unnamed) the first block of its id. */
export const experimentTitle = (experiment: { id: string; name?: string | null }) =>
  experiment.name?.trim() || `Unnamed experiment ${shortId(experiment.id)}`;

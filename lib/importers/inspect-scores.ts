// An Inspect sample's score as a run's label: the labelling scorer's value (the named scorer's, else
// the first), read as a number the way Inspect reads it, and why a sample is stored unscored. Pure.
import type { z } from "zod";
import type { InspectSample, scoreEventSchema } from "./inspect-log-schemas";

/** A decimal number as text (what Python's float reads, less inf and nan): no hex, no binary. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/;

/**
 * A score value as a number the way Inspect's own `value_to_float` reads it: C 1, I 0, P 0.5, N 0,
 * yes/true 1, no/false 0, numbers and decimal strings as they are. null for lists, objects and
 * other text: no label can be read from those. The summary reads stored values with its SQL twin,
 * score_as_number (migration scorer_rates).
 */
export function scoreAsNumber(value: unknown): number | null {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value !== "string") return null;
  const text = value.trim().toLowerCase();
  const named: Record<string, number> = { c: 1, i: 0, p: 0.5, n: 0, yes: 1, true: 1, no: 0, false: 0 };
  if (text in named) return named[text]!;
  const number = Number(text);
  return DECIMAL.test(text) && Number.isFinite(number) ? number : null;
}

/** A value as the messages quote it: text in quotes, anything else as JSON. */
export const describe = (value: unknown) => (typeof value === "string" ? `"${value}"` : JSON.stringify(value));

/** The scorers of a sample whose value reads as a number: those a run could be labelled by. */
const readableScorers = (sample: InspectSample) =>
  Object.entries(sample.scores ?? {}).flatMap(([scorer, s]) => (scoreAsNumber(s.value) === null ? [] : [scorer]));

export function unreadableScoreReason(scorer: string | undefined, value: unknown, sample: InspectSample): string {
  const readable = readableScorers(sample);
  const choose = readable.length > 0 ? `: choose the labelling scorer (--scorer; readable here: ${readable.join(", ")})` : "";
  const shown = describe(value);
  return `score ${shown.length > 300 ? `${shown.slice(0, 299)}…` : shown}${scorer ? ` (scorer ${scorer})` : ""} is not a label, number or boolean: no endpoint label can be read from it${choose}`;
}

export const unreadableLabel = (labelling: { scorer?: string; value: unknown } | { unscoredReason: string }) =>
  "value" in labelling && labelling.scorer !== undefined ? { unreadableScorer: labelling.scorer } : {};

/** Why a sample with no score is stored unscored (finality unscored: no endpoint label, in no rate). */
export const NO_SCORE_REASON =
  "no score event and no score: the sample was never scored (score the log with `inspect score`, then import it again)";

/** The labelling scorer's value of a sample: the named scorer's, else the first scorer's; without `scores`, the (named scorer's) last score event's. */
export function labellingScore(
  sample: InspectSample,
  scoreEvents: readonly z.infer<typeof scoreEventSchema>[],
  named: string | undefined,
): { scorer?: string; value: unknown } | { unscoredReason: string } {
  const scores = Object.entries(sample.scores ?? {});
  const lastScoreEvent = scoreEvents.at(-1);
  if (named !== undefined) {
    const entry = scores.find(([scorer]) => scorer === named);
    if (entry) return { scorer: named, value: entry[1].value };
    // A sample without `scores`: the named scorer's own score event, where the log names it.
    const event = scores.length === 0 ? scoreEvents.findLast((e) => e.scorer === named) : undefined;
    if (event) return { scorer: named, value: event.score.value };
    return { unscoredReason: `scorer ${named} (the labelling scorer named) recorded no value for this sample` };
  }
  if (scores[0]) return { scorer: scores[0][0], value: scores[0][1].value };
  if (lastScoreEvent) return { value: lastScoreEvent.score.value };
  return { unscoredReason: NO_SCORE_REASON };
}

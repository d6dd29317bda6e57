// How a trace's gen_ai.evaluation.result scores its live run: its label read through the label maps
// (the trace's resource's, the evaluation's, the conventions' words), else its value against the
// evaluation's threshold; a result none can read closes the run unscored with the reason. Pure.
import { type LabelMap, labelMapSchema } from "../evaluation-requests";
import type { ScoreLiveRunBody } from "../live/live-run-schemas";
import { isoTime } from "../../format/time";
import { LABELS } from "../vocabulary";
import { ATTR } from "./conventions";
import type { AttributeValue } from "./spans";

type Label = (typeof LABELS)[number];

export interface PlannedScore {
  spanId: string;
  atMs: number;
  name?: string;
  /** `gen_ai.evaluation.score.label` as sent, trimmed and in lower case: read by readScore against the label maps. */
  label?: string;
  value?: number;
}

/** Labels other than success/failure that evaluators write for the same two outcomes. */
const LABEL_WORDS: Record<string, Label> = {
  success: "success",
  pass: "success",
  passed: "success",
  correct: "success",
  true: "success",
  failure: "failure",
  fail: "failure",
  failed: "failure",
  incorrect: "failure",
  false: "failure",
};

/** A resource's `boundary_lab.label_map` (a JSON object of labels to success or failure), or why its spans cannot be used. */
export function resourceLabelMap(value: AttributeValue | undefined): { map?: LabelMap } | { refusal: string } {
  if (value === undefined) return {};
  const refusal = (why: string) => ({
    refusal: `the resource attribute ${ATTR.labelMap} ${why}, e.g. {"relevant": "success", "irrelevant": "failure"}`,
  });
  if (typeof value !== "string") return refusal("must be a JSON object as a string");
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return refusal("is not JSON");
  }
  const map = labelMapSchema.safeParse(parsed);
  return map.success ? { map: map.data } : refusal(`is not a label map (${map.error.issues[0]!.message})`);
}

/**
 * How a trace's gen_ai.evaluation.result scores its run: its label by the trace's label map, then the
 * evaluation's, then the conventions' words (pass, fail, ...); else its value against the evaluation's
 * threshold. A result none of these can read closes the run unscored with the reason, never leaves it
 * open (an open run is in no figure until its timeout).
 */
export function readScore(
  score: PlannedScore,
  evaluation: { labelMap: LabelMap | null; scoreThreshold: number | null },
  traceMap?: LabelMap,
): ScoreLiveRunBody {
  const at = isoTime(score.atMs);
  const word = score.label;
  const label = word === undefined ? undefined : (traceMap?.[word] ?? evaluation.labelMap?.[word] ?? LABEL_WORDS[word]);
  const value = score.value === undefined ? {} : { score: score.value };
  if (label) return { endpointLabel: label, at, ...value };
  if (score.value !== undefined && evaluation.scoreThreshold !== null)
    return {
      endpointLabel: score.value >= evaluation.scoreThreshold ? "success" : "failure",
      at,
      ...value,
      threshold: evaluation.scoreThreshold,
    };
  const unread =
    word === undefined
      ? `${ATTR.scoreValue} ${score.value} has no label, and the evaluation declares no scoreThreshold to judge it by`
      : `${ATTR.scoreLabel} "${word}" is in no labelMap (the evaluation's, or the resource's ${ATTR.labelMap}) and is neither ${LABELS.join(" nor ")} (nor ${Object.keys(LABEL_WORDS).join(", ")})${score.value === undefined ? "" : ", and the evaluation declares no scoreThreshold for its value"}`;
  return { unscoredReason: `${unread} (span ${score.spanId})`.slice(0, 1_000), at };
}

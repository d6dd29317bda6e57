// The exclusion-rule fields' controls (components/statistics/exclusion-rule-fields.tsx) by their
// path in the rule, with their labels: an error the API names by its field ("rule.threshold") is
// shown on, and moves focus to, the control to change, not on the rule as a whole. Pure.
import { RUN_CLASSIFICATIONS, type RunClassification } from "../replay/rules/classification";
import { CLASSIFICATION_LABELS } from "../format/replay-labels";
import { messageAfterField } from "./field-errors";

/** A control's path in the rule. */
export type RuleControl = "unresolved" | "eligiblePopulation" | "threshold" | `classes.${RunClassification}`;

export const RULE_CONTROL_LABELS = {
  ...(Object.fromEntries(RUN_CLASSIFICATIONS.map((c) => [`classes.${c}`, `${CLASSIFICATION_LABELS[c]} runs`])) as Record<
    `classes.${RunClassification}`,
    string
  >),
  unresolved: "Unresolved runs",
  eligiblePopulation: "Eligible population",
  threshold: "Target for the headline rate",
} satisfies Record<RuleControl, string>;

const isControl = (path: string): path is RuleControl => Object.hasOwn(RULE_CONTROL_LABELS, path);

/**
 * A server's refusal of one of the rule's controls in the form's words, keyed by its field: the
 * control's label in place of the field path the message starts with ("body.rule.threshold: …").
 * `ruleKey` is the body's name for the rule ("rule", "exclusionRule"). Null when the field is no
 * control of the rule (the rule as a whole, or another field): the form names it as before.
 */
export function ruleControlError(field: string | undefined, message: string, ruleKey: string): { key: string; message: string } | null {
  const path = field?.startsWith(`${ruleKey}.`) ? field.slice(ruleKey.length + 1) : undefined;
  if (path === undefined || !isControl(path)) return null;
  return { key: field!, message: `${RULE_CONTROL_LABELS[path]}: ${messageAfterField(message, field!)}` };
}

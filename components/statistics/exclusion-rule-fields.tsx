"use client";

import { Field, Fieldset, Input, Select, describedBy } from "@/components/ui/field";
import { RULE_CONTROL_LABELS, type RuleControl } from "@/lib/forms/exclusion-rule-fields";
import { RUN_CLASSIFICATIONS } from "@/lib/replay/rules/classification";
import {
  CLASS_TREATMENTS,
  DEFAULT_ELIGIBLE_POPULATION,
  DEFAULT_EXPERIMENT_RULE,
  UNRESOLVED_TREATMENTS,
  declarationOf,
  type ExclusionRule,
  type ExclusionRuleDeclaration,
} from "@/lib/statistics/exclusion-rule";

/** What the fields hold: the treatments, and the two free fields as typed. */
export interface RuleFieldsValue {
  classes: ExclusionRuleDeclaration["classes"];
  unresolved: ExclusionRuleDeclaration["unresolved"];
  eligiblePopulation: string;
  threshold: string;
}

export const DEFAULT_RULE_FIELDS: RuleFieldsValue = { ...declarationOf(DEFAULT_EXPERIMENT_RULE), eligiblePopulation: "", threshold: "" };

const WORDS: Record<string, string> = {
  keep: "keep with its own label",
  count_as_failure: "count as failure",
  count_as_success: "count as success",
  exclude: "exclude (reported apart)",
};

/**
 * The body's `exclusionRule`: left out while the fields still say the default rule (the API then
 * stores the default), else the declaration, with the threshold as a number (a non-number is
 * passed on as typed, for the schema to name).
 */
export function ruleFromFields(value: RuleFieldsValue): Record<string, unknown> | undefined {
  const rule = declarationFromFields(value);
  return JSON.stringify(rule) === JSON.stringify(declarationOf(DEFAULT_EXPERIMENT_RULE)) ? undefined : rule;
}

/** The declaration the fields say, always (a change of rule sends it whole). */
export function declarationFromFields(value: RuleFieldsValue): Record<string, unknown> {
  const { eligiblePopulation, threshold, ...treatments } = value;
  return {
    ...treatments,
    ...(eligiblePopulation.trim() && { eligiblePopulation: eligiblePopulation.trim() }),
    ...(threshold.trim() && { threshold: Number.isNaN(Number(threshold)) ? threshold : Number(threshold) }),
  };
}

/** The fields of a stored rule (what a change starts from). */
export function fieldsOfRule(rule: ExclusionRule): RuleFieldsValue {
  const { eligiblePopulation, threshold, ...treatments } = declarationOf(rule);
  return { ...treatments, eligiblePopulation: eligiblePopulation ?? "", threshold: threshold === undefined ? "" : String(threshold) };
}

/**
 * The exclusion rule, declared with the experiment or evaluation before its runs (docs/statistics.md): each
 * run class's treatment (an evaluation's completed runs are always kept), the unresolved label's,
 * the eligible population and a target for the headline rate.
 */
export function ExclusionRuleFields({
  kind,
  value,
  onChange,
  error,
  field = "exclusionRule",
  errors = {},
}: {
  kind: "experiment" | "evaluation";
  value: RuleFieldsValue;
  onChange: (next: RuleFieldsValue) => void;
  /** An error of the rule as a whole. */
  error?: string;
  /** The body's name for the rule: a control's errors are keyed, and its `data-field` named, `<field>.<its path>` ("rule.threshold"). */
  field?: string;
  errors?: Partial<Record<string, string>>;
}) {
  const id = "exclusionRule";
  /** A control's id (as before: exclusionRule-threshold, exclusionRule-completed), error and the attributes that tie them. */
  const control = (path: RuleControl, hint = false) => {
    const controlId = `${id}-${path.replace(/^classes\./, "")}`;
    const controlError = errors[`${field}.${path}`];
    return {
      error: controlError,
      props: {
        id: controlId,
        "data-field": `${field}.${path}`,
        "aria-invalid": controlError ? true : undefined,
        "aria-describedby": describedBy(controlId, { hint, error: controlError }),
      },
    };
  };
  const unresolved = control("unresolved");
  const eligiblePopulation = control("eligiblePopulation", true);
  const threshold = control("threshold", true);
  return (
    <Fieldset
      id={id}
      legend="Exclusion rule (declared now, frozen once created)"
      hint="What each kind of run does to the headline rate. Left as it is, the default rule applies (docs/statistics.md). Changing it later makes a new version, with a reason."
      error={error}
      className="space-y-4 rounded-lg border border-border p-4"
      data-field={id}
      data-testid="exclusion-rule-fields"
    >
      <div className="grid gap-4 sm:grid-cols-2">
        {/* An evaluation's run with no class is completed, and completed runs are always kept there (evaluationRuleDeclarationSchema). */}
        {(kind === "experiment" ? RUN_CLASSIFICATIONS : RUN_CLASSIFICATIONS.filter((c) => c !== "completed")).map((c) => {
          const treatment = control(`classes.${c}`);
          return (
            <Field key={c} id={treatment.props.id} label={RULE_CONTROL_LABELS[`classes.${c}`]} error={treatment.error}>
              <Select
                {...treatment.props}
                value={value.classes[c]}
                onChange={(e) => onChange({ ...value, classes: { ...value.classes, [c]: e.target.value } })}
              >
                {CLASS_TREATMENTS.map((t) => (
                  <option key={t} value={t}>
                    {WORDS[t]}
                  </option>
                ))}
              </Select>
            </Field>
          );
        })}
        <Field id={unresolved.props.id} label={RULE_CONTROL_LABELS.unresolved} error={unresolved.error}>
          <Select
            {...unresolved.props}
            value={value.unresolved}
            onChange={(e) => onChange({ ...value, unresolved: e.target.value as RuleFieldsValue["unresolved"] })}
          >
            {UNRESOLVED_TREATMENTS.map((t) => (
              <option key={t} value={t}>
                {WORDS[t]}
              </option>
            ))}
          </Select>
        </Field>
        <Field
          id={eligiblePopulation.props.id}
          label={`${RULE_CONTROL_LABELS.eligiblePopulation} (optional)`}
          hint={`In words; default: ${DEFAULT_ELIGIBLE_POPULATION}.`}
          error={eligiblePopulation.error}
        >
          <Input
            {...eligiblePopulation.props}
            value={value.eligiblePopulation}
            onChange={(e) => onChange({ ...value, eligiblePopulation: e.target.value })}
            autoComplete="off"
          />
        </Field>
        <Field
          id={threshold.props.id}
          label={`${RULE_CONTROL_LABELS.threshold} (optional)`}
          hint="A share from 0 to 1, e.g. 0.8: the statistics warn when another reasonable rule puts the rate on the other side of it."
          error={threshold.error}
        >
          <Input
            {...threshold.props}
            inputMode="decimal"
            value={value.threshold}
            onChange={(e) => onChange({ ...value, threshold: e.target.value })}
            autoComplete="off"
          />
        </Field>
      </div>
    </Fieldset>
  );
}

"use client";

import { Field, Fieldset, Input, Select } from "@/components/ui/field";
import { RUN_CLASSIFICATIONS } from "@/lib/replay/classification";
import { CLASSIFICATION_LABELS } from "@/lib/replay/display";
import { CLASS_TREATMENTS, DEFAULT_ELIGIBLE_POPULATION, DEFAULT_EXPERIMENT_RULE, UNRESOLVED_TREATMENTS, declarationOf, type ExclusionRule, type ExclusionRuleDeclaration } from "@/lib/statistics/exclusion-rule";

/** What the fields hold: the treatments, and the two free fields as typed. */
export interface RuleFieldsValue {
  classes: ExclusionRuleDeclaration["classes"];
  unresolved: ExclusionRuleDeclaration["unresolved"];
  eligiblePopulation: string;
  threshold: string;
}

export const DEFAULT_RULE_FIELDS: RuleFieldsValue = { ...declarationOf(DEFAULT_EXPERIMENT_RULE), eligiblePopulation: "", threshold: "" };

const WORDS: Record<string, string> = { keep: "keep with its own label", count_as_failure: "count as failure", count_as_success: "count as success", exclude: "exclude (reported apart)" };

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
 * The exclusion rule, declared with the experiment or evaluation before its runs (issue 12): each
 * run class's treatment (experiments only: ingested runs carry no class), the unresolved label's,
 * the eligible population and a target for the headline rate.
 */
export function ExclusionRuleFields({ kind, value, onChange, error }: { kind: "experiment" | "evaluation"; value: RuleFieldsValue; onChange: (next: RuleFieldsValue) => void; error?: string }) {
  const id = "exclusionRule";
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
        {kind === "experiment"
          ? RUN_CLASSIFICATIONS.map((c) => (
              <Field key={c} id={`${id}-${c}`} label={`${CLASSIFICATION_LABELS[c]} runs`}>
                <Select id={`${id}-${c}`} value={value.classes[c]} onChange={(e) => onChange({ ...value, classes: { ...value.classes, [c]: e.target.value } })}>
                  {CLASS_TREATMENTS.map((t) => (
                    <option key={t} value={t}>
                      {WORDS[t]}
                    </option>
                  ))}
                </Select>
              </Field>
            ))
          : null}
        <Field id={`${id}-unresolved`} label="Unresolved runs">
          <Select id={`${id}-unresolved`} value={value.unresolved} onChange={(e) => onChange({ ...value, unresolved: e.target.value as RuleFieldsValue["unresolved"] })}>
            {UNRESOLVED_TREATMENTS.map((t) => (
              <option key={t} value={t}>
                {WORDS[t]}
              </option>
            ))}
          </Select>
        </Field>
        <Field id={`${id}-eligiblePopulation`} label="Eligible population (optional)" hint={`In words; default: ${DEFAULT_ELIGIBLE_POPULATION}.`}>
          <Input id={`${id}-eligiblePopulation`} value={value.eligiblePopulation} onChange={(e) => onChange({ ...value, eligiblePopulation: e.target.value })} autoComplete="off" />
        </Field>
        <Field id={`${id}-threshold`} label="Target for the headline rate (optional)" hint="A share from 0 to 1, e.g. 0.8: the statistics warn when another reasonable rule puts the rate on the other side of it.">
          <Input id={`${id}-threshold`} inputMode="decimal" value={value.threshold} onChange={(e) => onChange({ ...value, threshold: e.target.value })} autoComplete="off" />
        </Field>
      </div>
    </Fieldset>
  );
}

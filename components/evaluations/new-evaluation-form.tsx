"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { callApi } from "@/components/ui/call-api";
import { FormAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CharacterCounter, Field, Input, Textarea, describedBy } from "@/components/ui/field";
import { useFieldErrors } from "@/components/ui/use-field-errors";
import { policyFromRows, type PolicyRow } from "@/lib/evaluations/policy-rows";
import { EVALUATION_DESCRIPTION_MAX, EVALUATION_NAME_MAX } from "@/lib/evaluations/vocabulary";
import { createEvaluationBodySchema } from "@/lib/evaluations/evaluation-requests";
import { fieldErrors, serverFieldError, type FieldSpec } from "@/lib/forms/field-errors";
import {
  DEFAULT_RULE_FIELDS,
  ExclusionRuleFields,
  ruleFromFields,
  type RuleFieldsValue,
} from "@/components/statistics/exclusion-rule-fields";
import { EffectPolicyEditor } from "./effect-policy-editor";

/** Each field as the form labels it: what every error message says. */
const FIELDS: Record<string, FieldSpec> = {
  name: { label: "Name" },
  description: { label: "Description" },
  harness: { label: "Harness" },
  benchmark: { label: "Benchmark" },
  effectPolicy: { label: "Effect policy", allowed: "a tool name or pattern and one of the four classes per row" },
  exclusionRule: { label: "Exclusion rule", allowed: "a target between 0 and 1 (e.g. 0.8), or none" },
};

const TEXT_FIELDS = [
  ["harness", "Harness (optional)", "What produced the runs, e.g. inspect, agentdojo, an in-house harness."],
  ["benchmark", "Benchmark (optional)", "e.g. tau-bench retail, AgentDojo banking."],
] as const;

/** The evaluation form: validated by the API's own schema (`createEvaluationBodySchema`) before it is sent, errors beside their field. */
export function NewEvaluationForm() {
  const router = useRouter();
  const { formRef, errors, show } = useFieldErrors();
  const [busy, setBusy] = useState(false);
  const [text, setText] = useState({ name: "", description: "", harness: "", benchmark: "" });
  const [rows, setRows] = useState<PolicyRow[]>([]);
  const [rule, setRule] = useState<RuleFieldsValue>(DEFAULT_RULE_FIELDS);

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const policy = policyFromRows(rows);
    // Empty optional fields are left out, as the API means by "not given".
    const input = {
      name: text.name,
      ...Object.fromEntries((["description", "harness", "benchmark"] as const).filter((k) => text[k].trim()).map((k) => [k, text[k]])),
      effectPolicy: policy.ok ? policy.policy : { tools: {} },
      ...(ruleFromFields(rule) && { exclusionRule: ruleFromFields(rule) }),
    };
    const parsed = createEvaluationBodySchema.safeParse(input);
    // Every field's error at once: the policy's rows are checked beside the schema, not before it.
    const found = parsed.success ? {} : fieldErrors(parsed.error.issues, input, FIELDS);
    if (!policy.ok) found.effectPolicy = policy.message;
    if (!parsed.success || !policy.ok) return show(found);
    show({});
    setBusy(true);
    const created = await callApi<{ id: string }>("/api/v1/evaluations", "POST", parsed.data);
    setBusy(false);
    if (created.ok) return router.push(`/evaluations/${created.data.id}`);
    const { key, message } = serverFieldError(created.field, created.message, FIELDS);
    show({ [key]: message });
  }

  const control = (id: keyof typeof text, hint: boolean, counter: boolean) => ({
    id,
    name: id,
    "data-field": id,
    value: text[id],
    onChange: (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => setText({ ...text, [id]: e.target.value }),
    "aria-invalid": errors[id] ? true : undefined,
    "aria-describedby": describedBy(id, { hint, error: errors[id], counter }),
  });

  return (
    <form ref={formRef} onSubmit={submit} noValidate className="max-w-3xl space-y-6">
      <Field
        id="name"
        label="Name"
        hint="How lists, filters and share links name it."
        error={errors.name}
        counter={<CharacterCounter length={text.name.length} max={EVALUATION_NAME_MAX} />}
      >
        <Input {...control("name", true, true)} autoComplete="off" required />
      </Field>
      <Field
        id="description"
        label="Description (optional)"
        hint="The model, the run, what it is for."
        error={errors.description}
        counter={<CharacterCounter length={text.description.length} max={EVALUATION_DESCRIPTION_MAX} />}
      >
        <Textarea {...control("description", true, true)} rows={3} />
      </Field>
      <div className="grid gap-4 sm:grid-cols-2">
        {TEXT_FIELDS.map(([id, label, hint]) => (
          <Field key={id} id={id} label={label} hint={hint} error={errors[id]}>
            <Input {...control(id, true, false)} autoComplete="off" />
          </Field>
        ))}
      </div>
      <EffectPolicyEditor id="effectPolicy" rows={rows} onChange={setRows} error={errors.effectPolicy} />
      <ExclusionRuleFields kind="evaluation" value={rule} onChange={setRule} error={errors.exclusionRule} />
      <FormAlert text={errors.form} />
      <Button type="submit" variant="primary" disabled={busy}>
        {busy ? "Creating…" : "Create evaluation"}
      </Button>
    </form>
  );
}

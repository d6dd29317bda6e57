"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { callApi } from "@/components/ui/call-api";
import { Alert, FormAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Textarea } from "@/components/ui/field";
import { useFieldErrors } from "@/components/ui/use-field-errors";
import { evaluationRuleChangeBodySchema } from "@/lib/evaluations/evaluation-requests";
import { ruleControlError } from "@/lib/forms/exclusion-rule-fields";
import { fieldErrors, serverFieldError, type FieldSpec } from "@/lib/forms/field-errors";
import type { RuleVersion } from "@/lib/statistics/answer-schema";
import { changeExclusionRuleBodySchema } from "@/lib/statistics/exclusion-rule";
import { declarationFromFields, ExclusionRuleFields, fieldsOfRule, type RuleFieldsValue } from "./exclusion-rule-fields";

const FIELDS: Record<string, FieldSpec> = {
  rule: { label: "Exclusion rule", allowed: "a target between 0 and 1 (e.g. 0.8), or none" },
  reason: { label: "Reason", allowed: "why the rule changes, at most 1000 characters" },
  baseVersion: { label: "Rule version" },
};

/**
 * Declares the rule's next version (PUT …/exclusion-rule) from the current one, with a reason: the
 * earlier versions stay in the history, and every figure above is recomputed under the new one. A
 * change made meanwhile by someone else is refused (409) with both versions named.
 */
export function ExclusionRuleChange({
  subject,
  current,
}: {
  subject: { kind: "experiment" | "evaluation"; id: string };
  current: RuleVersion;
}) {
  const router = useRouter();
  const [rule, setRule] = useState<RuleFieldsValue>(() => fieldsOfRule(current.rule));
  const [reason, setReason] = useState("");
  const { formRef, errors, show } = useFieldErrors();
  const [saved, setSaved] = useState<number>();
  const [busy, setBusy] = useState(false);

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSaved(undefined);
    const input = { baseVersion: current.version, reason, rule: declarationFromFields(rule) };
    const parsed = (subject.kind === "evaluation" ? evaluationRuleChangeBodySchema : changeExclusionRuleBodySchema).safeParse(input);
    if (!parsed.success) return show(fieldErrors(parsed.error.issues, input, FIELDS));
    show({});
    setBusy(true);
    const answer = await callApi<{ version: number }>(`/api/v1/${subject.kind}s/${subject.id}/exclusion-rule`, "PUT", parsed.data);
    setBusy(false);
    if (!answer.ok) {
      // A refused control of the rule is named and focused as the form labels it, not as "Exclusion rule".
      const { key, message } =
        ruleControlError(answer.field, answer.message, "rule") ?? serverFieldError(answer.field, answer.message, FIELDS);
      return show({ [key]: message });
    }
    setSaved(answer.data.version);
    setReason("");
    router.refresh();
  }

  return (
    <form
      ref={formRef}
      onSubmit={submit}
      noValidate
      className="space-y-4 rounded-lg border border-border bg-card p-4"
      aria-labelledby="rule-change-title"
      data-testid="exclusion-rule-change"
    >
      <h3 id="rule-change-title" className="text-base font-semibold">
        Declare a new version of the rule
      </h3>
      <p className="text-sm text-muted-foreground">
        Version {current.version} stays in the history above; every figure is recomputed under the new version, which names itself beside
        them.
      </p>
      <ExclusionRuleFields kind={subject.kind} value={rule} onChange={setRule} error={errors.rule} field="rule" errors={errors} />
      <Field
        id="rule-change-reason"
        label="Reason"
        hint="Why the rule changes: kept with the version, shown in the history."
        error={errors.reason}
      >
        <Textarea
          id="rule-change-reason"
          data-field="reason"
          rows={2}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          aria-invalid={errors.reason ? true : undefined}
        />
      </Field>
      {saved ? (
        <Alert tone="success" role="status" data-testid="rule-saved">
          <p>Saved as version {saved}; the figures above are recomputed.</p>
        </Alert>
      ) : null}
      <FormAlert text={errors.baseVersion ?? errors.form} />
      <Button type="submit" variant="primary" disabled={busy}>
        {busy ? "Saving…" : "Save as a new rule version"}
      </Button>
    </form>
  );
}

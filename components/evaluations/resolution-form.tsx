"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { callApi } from "@/components/ui/call-api";
import { FormAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Input, Select, Textarea, describedBy } from "@/components/ui/field";
import { useFieldErrors } from "@/components/ui/use-field-errors";
import { useToast } from "@/components/ui/toast";
import { postResolutionBodySchema } from "@/lib/evaluations/evaluation-requests";
import { RESOLUTION_STATUSES } from "@/lib/evaluations/vocabulary";
import { fieldErrors, serverFieldError, type FieldSpec } from "@/lib/forms/field-errors";

const FIELDS: Record<string, FieldSpec> = {
  effectId: { label: "Effect" },
  status: { label: "Status", allowed: RESOLUTION_STATUSES.join(", ") },
  at: { label: "When it happened", allowed: "an ISO 8601 instant, e.g. 2026-12-04T15:00:00Z" },
  evidence: { label: "Evidence" },
  verifiedBy: { label: "Verified by" },
};

/**
 * Late evidence for one of the run's effects, for editors (the resolutions route, which appends and
 * never overwrites, then recomputes the run's audit): which effect, its terminal status, when, the
 * evidence itself and who verified it. Checked by the route's own schema before it is sent.
 */
export function ResolutionForm({
  evaluationId,
  runExternalId,
  effects,
}: {
  evaluationId: string;
  runExternalId: string;
  effects: readonly { effectId: string; tool: string }[];
}) {
  const router = useRouter();
  const notify = useToast();
  const { formRef, errors, show } = useFieldErrors();
  const [busy, setBusy] = useState(false);
  const [value, setValue] = useState({
    effectId: effects[0]?.effectId ?? "",
    status: "completed",
    // Left for the editor to give: a default of now, saved unchanged, recorded an effect as ended when the form was opened.
    at: "",
    evidence: "",
    verifiedBy: "",
  });

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const { effectId, verifiedBy, ...rest } = value;
    const input = { ...rest, ...(verifiedBy.trim() && { verifiedBy }), runExternalId };
    const parsed = postResolutionBodySchema.safeParse(input);
    const found = parsed.success ? {} : fieldErrors(parsed.error.issues, input, FIELDS);
    if (value.evidence.trim() === "") found.evidence = "Evidence must not be empty: say what shows the effect's outcome";
    if (!parsed.success || found.evidence) return show(found);
    show({});
    setBusy(true);
    const answer = await callApi<{ id: string }>(
      `/api/v1/evaluations/${evaluationId}/effects/${encodeURIComponent(effectId)}/resolutions`,
      "POST",
      parsed.data,
    );
    setBusy(false);
    if (!answer.ok) {
      const { key, message } = serverFieldError(answer.field, answer.message, FIELDS);
      return show({ [key]: message });
    }
    notify({ title: `Resolution of ${effectId} recorded`, description: "The run's audit is recomputed with it." });
    setValue({ ...value, evidence: "", verifiedBy: "" });
    router.refresh();
  }

  const control = (id: keyof typeof value, hint: boolean) => ({
    id: `resolution-${id}`,
    name: id,
    "data-field": id,
    value: value[id],
    onChange: (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) =>
      setValue({ ...value, [id]: e.target.value }),
    "aria-invalid": errors[id] ? true : undefined,
    "aria-describedby": describedBy(`resolution-${id}`, { hint, error: errors[id] }),
  });

  return (
    <form ref={formRef} onSubmit={submit} noValidate className="max-w-3xl space-y-4" data-testid="resolution-form">
      <div className="grid gap-4 sm:grid-cols-2">
        <Field id="resolution-effectId" label="Effect" error={errors.effectId}>
          <Select {...control("effectId", false)}>
            {effects.map((e) => (
              <option key={e.effectId} value={e.effectId}>
                {e.effectId} ({e.tool})
              </option>
            ))}
          </Select>
        </Field>
        <Field id="resolution-status" label="Status" error={errors.status}>
          <Select {...control("status", false)}>
            {RESOLUTION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </Select>
        </Field>
      </div>
      <Field id="resolution-at" label="When it happened" hint="The instant the effect ended, in UTC (ISO 8601)." error={errors.at}>
        <Input {...control("at", true)} autoComplete="off" />
      </Field>
      <Field
        id="resolution-evidence"
        label="Evidence"
        hint="What shows the outcome: a ledger entry, a reconciliation, the controller's answer."
        error={errors.evidence}
      >
        <Textarea {...control("evidence", true)} rows={2} maxLength={4_000} />
      </Field>
      <Field id="resolution-verifiedBy" label="Verified by (optional)" error={errors.verifiedBy}>
        <Input {...control("verifiedBy", false)} autoComplete="off" maxLength={200} />
      </Field>
      <FormAlert text={errors.form} />
      <Button type="submit" variant="primary" disabled={busy || effects.length === 0}>
        {busy ? "Recording…" : "Record resolution"}
      </Button>
    </form>
  );
}

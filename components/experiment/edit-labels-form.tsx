"use client";

import { useState } from "react";
import { z } from "zod";
import { callApi } from "@/components/ui/call-api";
import { FormAlert } from "@/components/ui/alert";
import { DialogActions } from "@/components/ui/dialog";
import { CharacterCounter, Field, Input, Textarea, describedBy } from "@/components/ui/field";
import { EXPERIMENT_NAME_MAX, EXPERIMENT_NOTES_MAX, experimentLabelsShape } from "@/lib/experiments/experiment-schemas";
import { fieldErrors, serverFieldError } from "@/lib/forms/field-errors";

const FIELDS = { name: { label: "Name" }, notes: { label: "Notes" } };
const labelsSchema = z.object(experimentLabelsShape);

/**
 * The name and notes form, checked by the API's own schema (experimentLabelsShape) before PATCH
 * /api/v1/experiments/:id; an emptied field clears it (sent as null). Loaded when the dialog opens,
 * so that zod is not part of the experiment page's first load.
 */
export default function EditLabelsForm({
  experimentId,
  initialName,
  initialNotes,
  onSaved,
}: {
  experimentId: string;
  initialName: string | null;
  initialNotes: string | null;
  onSaved: () => void;
}) {
  const [name, setName] = useState(initialName ?? "");
  const [notes, setNotes] = useState(initialNotes ?? "");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    const input = { ...(name.trim() ? { name } : {}), ...(notes.trim() ? { notes } : {}) };
    const parsed = labelsSchema.safeParse(input);
    if (!parsed.success) return setErrors(fieldErrors(parsed.error.issues, input, FIELDS));
    setErrors({});
    setBusy(true);
    const result = await callApi(`/api/v1/experiments/${experimentId}`, "PATCH", {
      name: parsed.data.name ?? null,
      notes: parsed.data.notes ?? null,
    });
    setBusy(false);
    if (!result.ok) {
      const { key, message } = serverFieldError(result.field, result.message, FIELDS);
      return setErrors({ [key]: message });
    }
    onSaved();
  }

  return (
    <form onSubmit={submit} noValidate className="space-y-4">
      <Field
        id="experiment-name"
        label="Name"
        error={errors.name}
        counter={<CharacterCounter length={name.length} max={EXPERIMENT_NAME_MAX} />}
      >
        <Input
          id="experiment-name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          aria-invalid={errors.name ? true : undefined}
          aria-describedby={describedBy("experiment-name", { error: errors.name, counter: true })}
          autoComplete="off"
        />
      </Field>
      <Field
        id="experiment-notes"
        label="Notes"
        error={errors.notes}
        counter={<CharacterCounter length={notes.length} max={EXPERIMENT_NOTES_MAX} />}
      >
        <Textarea
          id="experiment-notes"
          rows={6}
          value={notes}
          onChange={(e) => setNotes(e.target.value)}
          aria-invalid={errors.notes ? true : undefined}
          aria-describedby={describedBy("experiment-notes", { error: errors.notes, counter: true })}
        />
      </Field>
      <FormAlert text={errors.form} />
      <DialogActions submit="Save" busyLabel="Saving…" busy={busy} />
    </form>
  );
}

"use client";

import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { callApi } from "@/components/ui/call-api";
import { FormAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Input, Textarea, describedBy } from "@/components/ui/field";
import { useToast } from "@/components/ui/toast";
import { fieldErrors, serverFieldError, type FieldSpec } from "@/lib/forms/field-errors";
import { PROTOCOL_LIMITS } from "@/lib/review/protocol-limits";

const FIELDS: Record<string, FieldSpec> = {
  name: { label: "Name", allowed: `a name, at most ${PROTOCOL_LIMITS.name} characters` },
  benchmarkVersion: { label: "Benchmark version", allowed: `at most ${PROTOCOL_LIMITS.benchmarkVersion} characters` },
  scope: { label: "Scope statement", allowed: `at most ${PROTOCOL_LIMITS.scope} characters` },
  sources: { label: "Source links", allowed: "one http(s) URL per line" },
  reason: { label: "Reason for this change", allowed: "a reason, at most 2000 characters" },
};

interface Existing {
  id: string;
  name: string;
  benchmarkVersion: string | null;
  scope: string | null;
  sources: string[];
  retired: boolean;
  version: number;
}

/** Adds a protocol (no `existing`), or edits, renames, retires or reinstates one, with a reason. */
export function ProtocolForm({ existing }: { existing?: Existing }) {
  const router = useRouter();
  const notify = useToast();
  const id = useId();
  const [errors, setErrors] = useState<Record<string, string>>({});

  async function send(event: React.FormEvent<HTMLFormElement>, retired?: boolean) {
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? "").trim();
    const fields = {
      name: text("name"),
      benchmarkVersion: text("benchmarkVersion"),
      scope: text("scope"),
      sources: text("sources")
        .split("\n")
        .map((s) => s.trim())
        .filter(Boolean),
    };
    const body = existing
      ? { ...fields, expectedVersion: existing.version, reason: text("reason"), ...(retired === undefined ? {} : { retired }) }
      : fields;
    // The API's own schemas, fetched on the first submit: zod stays out of the page's first load.
    const { createProtocolSchema, updateProtocolSchema } = await import("@/lib/review/review-schemas");
    const schema = existing ? updateProtocolSchema : createProtocolSchema;
    const parsed = schema.safeParse(body);
    if (!parsed.success) return setErrors(fieldErrors(parsed.error.issues, body, FIELDS));
    setErrors({});
    const result = await callApi<{ id: string }>(
      existing ? `/api/v1/protocols/${existing.id}` : "/api/v1/protocols",
      existing ? "PATCH" : "POST",
      parsed.data,
    );
    if (!result.ok) {
      const { key, message } = serverFieldError(result.field, result.message, FIELDS);
      return setErrors({ [key]: message });
    }
    if (existing) {
      notify({ title: retired === true ? "Protocol retired" : retired === false ? "Protocol reinstated" : "Protocol saved" });
      return router.refresh();
    }
    notify({ title: `Added ${fields.name}` });
    router.push(`/protocols/${result.data.id}`);
  }

  const aria = (name: string) => ({
    "aria-invalid": errors[name] ? true : undefined,
    "aria-describedby": describedBy(`${id}-${name}`, { error: errors[name] }),
  });
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        const submitter = (e.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
        void send(e, submitter?.value === "retire" ? true : submitter?.value === "reinstate" ? false : undefined);
      }}
      noValidate
      className="max-w-2xl space-y-4"
      aria-label={existing ? `Edit ${existing.name}` : "Add a protocol"}
      data-testid={existing ? "protocol-edit-form" : "protocol-add-form"}
    >
      <div className="grid gap-4 sm:grid-cols-2">
        <Field id={`${id}-name`} label="Name" error={errors.name}>
          <Input id={`${id}-name`} name="name" defaultValue={existing?.name ?? ""} {...aria("name")} />
        </Field>
        <Field id={`${id}-benchmarkVersion`} label="Benchmark version (optional)" error={errors.benchmarkVersion}>
          <Input
            id={`${id}-benchmarkVersion`}
            name="benchmarkVersion"
            defaultValue={existing?.benchmarkVersion ?? ""}
            {...aria("benchmarkVersion")}
          />
        </Field>
      </div>
      <Field id={`${id}-scope`} label="Scope statement (optional)" error={errors.scope}>
        <Textarea id={`${id}-scope`} name="scope" rows={3} defaultValue={existing?.scope ?? ""} {...aria("scope")} />
      </Field>
      <Field id={`${id}-sources`} label="Source links (one URL per line, optional)" error={errors.sources}>
        <Textarea id={`${id}-sources`} name="sources" rows={2} defaultValue={existing?.sources.join("\n") ?? ""} {...aria("sources")} />
      </Field>
      {existing ? (
        <Field id={`${id}-reason`} label="Reason for this change" error={errors.reason}>
          <Input id={`${id}-reason`} name="reason" {...aria("reason")} />
        </Field>
      ) : null}
      <FormAlert text={errors.form ?? errors.expectedVersion} />
      <div className="flex flex-wrap gap-2">
        <Button type="submit" variant="primary">
          {existing ? "Save" : "Add protocol"}
        </Button>
        {existing ? (
          <Button type="submit" value={existing.retired ? "reinstate" : "retire"}>
            {existing.retired ? "Reinstate" : "Retire"}
          </Button>
        ) : null}
      </div>
    </form>
  );
}

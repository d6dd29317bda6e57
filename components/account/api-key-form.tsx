"use client";

import { KeyRound } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { callApi } from "@/components/ui/call-api";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Field, Input, describedBy } from "@/components/ui/field";
import { fieldErrors } from "@/lib/forms/field-errors";

/** A new API key for oneself, shown once, with a copy button. */
export function NewApiKeyForm() {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [key, setKey] = useState<string | null>(null);
  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const input = { name: String(new FormData(formElement).get("keyName")) };
    setError(null);
    const { newApiKeySchema } = await import("@/lib/auth/account-schemas");
    const parsed = newApiKeySchema.safeParse(input);
    if (!parsed.success)
      return setError(
        fieldErrors(parsed.error.issues, input, { name: { label: "Key name", allowed: "1 to 64 characters" } }).name ??
          "The key name is not accepted.",
      );
    const result = await callApi<{ key: string }>("/api/v1/api-keys", "POST", parsed.data);
    if (!result.ok) return setError(result.message);
    setKey(result.data.key);
    formElement.reset();
    router.refresh();
  }
  return (
    <form onSubmit={submit} noValidate className="space-y-3">
      <div className="flex flex-wrap items-end gap-3">
        <Field id="keyName" label="Key name" error={error} className="min-w-64">
          <Input
            id="keyName"
            name="keyName"
            maxLength={64}
            placeholder="e.g. harness on ci-3"
            aria-invalid={error ? true : undefined}
            aria-describedby={describedBy("keyName", { error })}
          />
        </Field>
        <Button type="submit" variant="primary">
          <KeyRound aria-hidden="true" />
          Create API key
        </Button>
      </div>
      {key ? (
        <Alert tone="success" role="status" title="New key: shown once, copy it now">
          <div className="flex flex-wrap items-center gap-2">
            <code data-testid="new-api-key" className="rounded bg-card px-2 py-1 text-xs [overflow-wrap:anywhere]">
              {key}
            </code>
            <CopyButton text={key} label="Copy key" />
          </div>
        </Alert>
      ) : null}
    </form>
  );
}

"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { authClient } from "@/lib/auth/auth-browser-client";
import { firstAdminSchema, MIN_PASSWORD_LENGTH } from "@/lib/auth/account-schemas";
import { fieldErrors, serverFieldError, type FieldSpec } from "@/lib/forms/field-errors";
import { callApi } from "../ui/call-api";
import { FormAlert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, Input, describedBy } from "../ui/field";

const FIELDS: Record<string, FieldSpec> = {
  name: { label: "Name", allowed: "1 to 100 characters" },
  email: { label: "Email", allowed: "an email address" },
  password: { label: "Password", allowed: `at least ${MIN_PASSWORD_LENGTH} characters` },
};

/** First run: the first admin's account, then signed in at once. */
export function SetupForm() {
  const router = useRouter();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const input = { email: String(form.get("email")), password: String(form.get("password")), name: String(form.get("name")) || undefined };
    const parsed = firstAdminSchema.safeParse(input);
    if (!parsed.success) return setErrors(fieldErrors(parsed.error.issues, input, FIELDS));
    setBusy(true);
    setErrors({});
    const created = await callApi("/api/v1/setup", "POST", parsed.data);
    if (!created.ok) {
      setBusy(false);
      const { key, message } = serverFieldError(created.field, created.message, FIELDS);
      return setErrors({ [key]: message });
    }
    await authClient.signIn.email({ email: parsed.data.email, password: parsed.data.password });
    router.replace("/");
    router.refresh();
  }
  const aria = (key: string) => ({
    "aria-invalid": errors[key] ? true : undefined,
    "aria-describedby": describedBy(key, { error: errors[key] }),
  });

  return (
    <form onSubmit={submit} noValidate className="space-y-4">
      <Field id="name" label="Name" error={errors.name}>
        <Input id="name" name="name" autoComplete="name" {...aria("name")} />
      </Field>
      <Field id="email" label="Email" error={errors.email}>
        <Input id="email" name="email" type="email" autoComplete="username" {...aria("email")} />
      </Field>
      <Field id="password" label={`Password (at least ${MIN_PASSWORD_LENGTH} characters)`} error={errors.password}>
        <Input id="password" name="password" type="password" autoComplete="new-password" {...aria("password")} />
      </Field>
      <FormAlert text={errors.form} />
      <Button type="submit" variant="primary" disabled={busy} className="w-full">
        {busy ? "Creating…" : "Create the admin account"}
      </Button>
    </form>
  );
}

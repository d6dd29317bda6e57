"use client";

import { useState } from "react";
import { Alert, FormAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Input, describedBy } from "@/components/ui/field";
import { fieldErrors, type FieldSpec } from "@/lib/forms/field-errors";

/**
 * Password change; other sessions are signed out. The schema and Better Auth's client are loaded on
 * submit, not with the page.
 */
export function PasswordForm({ minLength }: { minLength: number }) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [done, setDone] = useState(false);
  const fields: Record<string, FieldSpec> = {
    currentPassword: { label: "Current password" },
    newPassword: { label: "New password", allowed: `at least ${minLength} characters` },
  };
  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    setErrors({});
    setDone(false);
    const input = { currentPassword: String(form.get("currentPassword")), newPassword: String(form.get("newPassword")) };
    const [{ changePasswordSchema }, { authClient }] = await Promise.all([
      import("@/lib/auth/account-schemas"),
      import("@/lib/auth/auth-browser-client"),
    ]);
    const checked = changePasswordSchema.safeParse(input);
    if (!checked.success) return setErrors(fieldErrors(checked.error.issues, input, fields));
    const { error } = await authClient.changePassword({ ...checked.data, revokeOtherSessions: true });
    if (error)
      setErrors({ form: error.status === 429 ? "Too many attempts: wait a minute." : (error.message ?? "The password was not changed.") });
    else {
      setDone(true);
      formElement.reset();
    }
  }
  return (
    <form onSubmit={submit} noValidate className="max-w-md space-y-4">
      <Field id="currentPassword" label="Current password" error={errors.currentPassword}>
        <Input
          id="currentPassword"
          name="currentPassword"
          type="password"
          autoComplete="current-password"
          aria-invalid={errors.currentPassword ? true : undefined}
          aria-describedby={describedBy("currentPassword", { error: errors.currentPassword })}
        />
      </Field>
      <Field id="newPassword" label={`New password (at least ${minLength} characters)`} error={errors.newPassword}>
        <Input
          id="newPassword"
          name="newPassword"
          type="password"
          autoComplete="new-password"
          aria-invalid={errors.newPassword ? true : undefined}
          aria-describedby={describedBy("newPassword", { error: errors.newPassword })}
        />
      </Field>
      <FormAlert text={errors.form} />
      {done ? (
        <Alert tone="success" role="status">
          <p>Password changed; your other sessions were signed out.</p>
        </Alert>
      ) : null}
      <Button type="submit" variant="primary">
        Change password
      </Button>
    </form>
  );
}

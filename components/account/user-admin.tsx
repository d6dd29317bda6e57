"use client";

import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { callApi } from "@/components/ui/call-api";
import { FormAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Dialog, DialogActions } from "@/components/ui/dialog";
import { Field, Input, Select, describedBy } from "@/components/ui/field";
import { useToast } from "@/components/ui/toast";
import { ROLES } from "@/lib/auth/permissions";
import { fieldErrors, serverFieldError, type FieldSpec } from "@/lib/forms/field-errors";

const newUserFields = (minLength: number): Record<string, FieldSpec> => ({
  email: { label: "Email", allowed: "an email address" },
  name: { label: "Name", allowed: "1 to 100 characters" },
  password: { label: "Initial password", allowed: `at least ${minLength} characters` },
  role: { label: "Role" },
});

/** An admin's form for a new account, checked by the API's schema (loaded on submit). */
export function NewUserForm({ minLength }: { minLength: number }) {
  const fields = newUserFields(minLength);
  const router = useRouter();
  const notify = useToast();
  const [errors, setErrors] = useState<Record<string, string>>({});
  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const input = {
      email: String(form.get("newEmail")),
      password: String(form.get("newPassword")),
      role: String(form.get("newRole")),
      ...(String(form.get("newName")) ? { name: String(form.get("newName")) } : {}),
    };
    const { newUserSchema } = await import("@/lib/auth/account-schemas");
    const parsed = newUserSchema.safeParse(input);
    if (!parsed.success) return setErrors(fieldErrors(parsed.error.issues, input, fields));
    const result = await callApi("/api/v1/users", "POST", parsed.data);
    if (!result.ok) {
      const { key, message } = serverFieldError(result.field, result.message, fields);
      return setErrors({ [key]: message });
    }
    setErrors({});
    formElement.reset();
    notify({ title: `Account ${parsed.data.email} created` });
    router.refresh();
  }
  const aria = (id: string, key: string) => ({
    "aria-invalid": errors[key] ? true : undefined,
    "aria-describedby": describedBy(id, { error: errors[key] }),
  });
  return (
    <form onSubmit={submit} noValidate className="grid max-w-3xl gap-4 sm:grid-cols-2">
      <Field id="newEmail" label="Email" error={errors.email}>
        <Input id="newEmail" name="newEmail" type="email" autoComplete="off" {...aria("newEmail", "email")} />
      </Field>
      <Field id="newName" label="Name (optional)" error={errors.name}>
        <Input id="newName" name="newName" autoComplete="off" {...aria("newName", "name")} />
      </Field>
      <Field id="newPassword" label={`Initial password (at least ${minLength} characters)`} error={errors.password}>
        <Input
          id="newPassword"
          name="newPassword"
          type="password"
          minLength={minLength}
          autoComplete="new-password"
          {...aria("newPassword", "password")}
        />
      </Field>
      <Field id="newRole" label="Role" error={errors.role}>
        <Select id="newRole" name="newRole" defaultValue="viewer">
          <option value="viewer">viewer: reads everything</option>
          <option value="reviewer">reviewer: reads, enters own review codes</option>
          <option value="editor">editor: runs experiments, edits codes, shares</option>
          <option value="admin">admin: everything, users and share links</option>
        </Select>
      </Field>
      <div className="sm:col-span-2">
        <FormAlert text={errors.form} />
      </div>
      <div>
        <Button type="submit" variant="primary">
          Create account
        </Button>
      </div>
    </form>
  );
}

/** Changes one user's role from the users table. */
export function RoleSelect({ userId, role, label }: { userId: string; role: string; label: string }) {
  const router = useRouter();
  const notify = useToast();
  return (
    <Select
      aria-label={label}
      defaultValue={role}
      className="w-32"
      onChange={async (e) => {
        const select = e.target;
        const result = await callApi(`/api/v1/users/${encodeURIComponent(userId)}`, "PATCH", { role: select.value });
        if (!result.ok) {
          notify({ title: "The role was not changed", description: result.message, tone: "danger" });
          select.value = role;
        } else {
          notify({
            title: `Role set to ${select.value}`,
            description: "Their sessions ended: the new role applies from their next sign-in.",
          });
          router.refresh();
        }
      }}
    >
      {ROLES.map((r) => (
        <option key={r} value={r}>
          {r}
        </option>
      ))}
    </Select>
  );
}

/** An admin sets a new password for a user (POST /api/v1/users/:id/password); they then sign in with it. */
export function ResetPasswordButton({ userId, email, minLength }: { userId: string; email: string; minLength: number }) {
  const id = useId();
  const notify = useToast();
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const password = String(new FormData(event.currentTarget).get("password"));
    if (password.length < minLength) return setError(`New password must be at least ${minLength} characters (it has ${password.length})`);
    setBusy(true);
    const result = await callApi(`/api/v1/users/${encodeURIComponent(userId)}/password`, "POST", { password });
    setBusy(false);
    if (!result.ok) return setError(serverFieldError(result.field, result.message, { password: { label: "New password" } }).message);
    setOpen(false);
    notify({ title: `Password of ${email} reset`, description: "Tell them the new one through a channel you trust." });
  }
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        setError(null);
      }}
      trigger={<Button size="sm">Reset password…</Button>}
      title={`Reset the password of ${email}`}
      description="Their sessions end; they sign in with the new password."
      width="28rem"
    >
      <form onSubmit={submit} noValidate className="space-y-4">
        <Field id={`${id}-password`} label={`New password (at least ${minLength} characters)`} error={error}>
          <Input
            id={`${id}-password`}
            name="password"
            type="password"
            autoComplete="new-password"
            aria-invalid={error ? true : undefined}
            aria-describedby={describedBy(`${id}-password`, { error })}
          />
        </Field>
        <DialogActions submit="Set password" busyLabel="Setting…" busy={busy} />
      </form>
    </Dialog>
  );
}

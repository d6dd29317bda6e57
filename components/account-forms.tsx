"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { authClient } from "@/lib/auth/client";
import { ROLES } from "@/lib/auth/permissions";
import { changePasswordSchema, MIN_PASSWORD_LENGTH, newApiKeySchema, newUserSchema } from "@/lib/auth/schemas";
import { callApi, callApiChecked } from "./api-client";
import { FormAlert } from "./form-alert";

export function SignOutButton() {
  const router = useRouter();
  return (
    <button
      type="button"
      className="link-button"
      onClick={async () => {
        await authClient.signOut();
        router.replace("/login");
        router.refresh();
      }}
    >
      Sign out
    </button>
  );
}

/** Password change; other sessions are signed out. */
export function PasswordForm() {
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    setError(null);
    setDone(false);
    const checked = changePasswordSchema.safeParse({ currentPassword: String(form.get("currentPassword")), newPassword: String(form.get("newPassword")) });
    if (!checked.success) return setError(checked.error.issues[0]!.message);
    const { error } = await authClient.changePassword({ ...checked.data, revokeOtherSessions: true });
    if (error) setError(error.status === 429 ? "Too many attempts: wait a minute." : (error.message ?? "The password was not changed."));
    else {
      setDone(true);
      formElement.reset();
    }
  }
  return (
    <form onSubmit={submit} className="stack">
      <p>
        <label htmlFor="currentPassword">Current password</label>
        <input id="currentPassword" name="currentPassword" type="password" autoComplete="current-password" required />
      </p>
      <p>
        <label htmlFor="newPassword">New password (at least {MIN_PASSWORD_LENGTH} characters)</label>
        <input id="newPassword" name="newPassword" type="password" autoComplete="new-password" minLength={MIN_PASSWORD_LENGTH} required />
      </p>
      <FormAlert text={error} />
      {done ? <p role="status">Password changed; your other sessions were signed out.</p> : null}
      <p>
        <button type="submit">Change password</button>
      </p>
    </form>
  );
}

/** A new API key for oneself, shown once. */
export function NewApiKeyForm() {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [key, setKey] = useState<string | null>(null);
  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    setError(null);
    const result = await callApiChecked<{ key: string }>(newApiKeySchema, "/api/v1/api-keys", "POST", { name: String(form.get("keyName")) });
    if (!result.ok) return setError(result.message);
    setKey(result.data.key);
    formElement.reset();
    router.refresh();
  }
  return (
    <form onSubmit={submit} className="inline-form">
      <label htmlFor="keyName">Key name</label>
      <input id="keyName" name="keyName" required maxLength={64} placeholder="e.g. harness on ci-3" />
      <button type="submit">Create API key</button>
      <FormAlert text={error} />
      {key ? (
        <p role="status">
          New key (shown once, copy it now): <code data-testid="new-api-key">{key}</code>
        </p>
      ) : null}
    </form>
  );
}

/** A button that calls one API route and refreshes the page's server-rendered lists. */
export function ActionButton({ url, method, body, label, confirm }: { url: string; method: "POST" | "PUT" | "PATCH" | "DELETE"; body?: unknown; label: string; confirm?: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <>
      <button
        type="button"
        disabled={busy}
        onClick={async () => {
          if (confirm && !window.confirm(confirm)) return;
          setBusy(true);
          const result = await callApi(url, method, body);
          setBusy(false);
          if (!result.ok) setError(result.message);
          else router.refresh();
        }}
      >
        {label}
      </button>
      <FormAlert text={error} />
    </>
  );
}

/** An admin's form for a new account. */
export function NewUserForm() {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    setError(null);
    const result = await callApiChecked(newUserSchema, "/api/v1/users", "POST", {
      email: String(form.get("newEmail")),
      password: String(form.get("newPassword")),
      role: String(form.get("newRole")),
      ...(String(form.get("newName")) ? { name: String(form.get("newName")) } : {}),
    });
    if (!result.ok) return setError(result.message);
    formElement.reset();
    router.refresh();
  }
  return (
    <form onSubmit={submit} className="stack">
      <p>
        <label htmlFor="newEmail">Email</label>
        <input id="newEmail" name="newEmail" type="email" required autoComplete="off" />
      </p>
      <p>
        <label htmlFor="newName">Name (optional)</label>
        <input id="newName" name="newName" autoComplete="off" />
      </p>
      <p>
        <label htmlFor="newPassword">Initial password (at least {MIN_PASSWORD_LENGTH} characters)</label>
        <input id="newPassword" name="newPassword" type="password" minLength={MIN_PASSWORD_LENGTH} required autoComplete="new-password" />
      </p>
      <p>
        <label htmlFor="newRole">Role</label>
        <select id="newRole" name="newRole" defaultValue="viewer">
          <option value="viewer">viewer: reads everything</option>
          <option value="reviewer">reviewer: reads, enters own review codes</option>
          <option value="editor">editor: runs experiments, edits codes, shares</option>
          <option value="admin">admin: everything, users and share links</option>
        </select>
      </p>
      <FormAlert text={error} />
      <p>
        <button type="submit">Create account</button>
      </p>
    </form>
  );
}

/** Changes one user's role from the users table. */
export function RoleSelect({ userId, role, label }: { userId: string; role: string; label: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <select
        aria-label={label}
        defaultValue={role}
        onChange={async (e) => {
          setError(null);
          const result = await callApi(`/api/v1/users/${encodeURIComponent(userId)}`, "PATCH", { role: e.target.value });
          if (!result.ok) {
            setError(result.message);
            e.target.value = role;
          } else router.refresh();
        }}
      >
        {ROLES.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
      <FormAlert text={error} />
    </>
  );
}

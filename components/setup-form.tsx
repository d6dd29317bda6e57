"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { authClient } from "@/lib/auth/client";
import { firstAdminSchema, MIN_PASSWORD_LENGTH } from "@/lib/auth/schemas";
import { callApiChecked } from "./api-client";
import { FormAlert } from "./form-alert";

/** First run: the first admin's account, then signed in at once. */
export function SetupForm() {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get("email"));
    const password = String(form.get("password"));
    setBusy(true);
    setError(null);
    const created = await callApiChecked(firstAdminSchema, "/api/v1/setup", "POST", { email, password, name: String(form.get("name")) || undefined });
    if (!created.ok) {
      setBusy(false);
      setError(created.message);
      return;
    }
    await authClient.signIn.email({ email, password });
    router.replace("/");
    router.refresh();
  }

  return (
    <form onSubmit={submit} className="stack">
      <p>
        <label htmlFor="name">Name</label>
        <input id="name" name="name" autoComplete="name" />
      </p>
      <p>
        <label htmlFor="email">Email</label>
        <input id="email" name="email" type="email" autoComplete="username" required />
      </p>
      <p>
        <label htmlFor="password">Password (at least {MIN_PASSWORD_LENGTH} characters)</label>
        <input id="password" name="password" type="password" autoComplete="new-password" minLength={MIN_PASSWORD_LENGTH} required />
      </p>
      <FormAlert text={error} />
      <p>
        <button type="submit" disabled={busy}>
          {busy ? "Creating…" : "Create the admin account"}
        </button>
      </p>
    </form>
  );
}

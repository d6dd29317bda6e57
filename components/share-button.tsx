"use client";

import { useId, useState } from "react";
import { callApi } from "./api-client";
import { FormAlert } from "./form-alert";

interface Created {
  url: string;
  link: { expiresAt: string | null; contentHash: string | null; mode: string };
}

/** Makes a read-only share link for one experiment or run: frozen by default, with an expiry. */
export function ShareButton({ resourceType, resourceId }: { resourceType: "experiment" | "run" | "protocol_matrix"; resourceId?: string }) {
  const what = resourceType === "protocol_matrix" ? "protocol matrix" : resourceType;
  const [open, setOpen] = useState(false);
  const [mode, setMode] = useState<"frozen" | "live">("frozen");
  const [expiry, setExpiry] = useState("14");
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<Created | null>(null);
  const id = useId();

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const result = await callApi<Created>("/api/v1/share-links", "POST", {
      resourceType,
      ...(resourceId ? { resourceId } : {}),
      mode,
      expiresInDays: expiry === "never" ? null : Number(expiry),
      ...(note.trim() ? { note: note.trim() } : {}),
    });
    setBusy(false);
    if (result.ok) setCreated(result.data);
    else setError(result.message);
  }

  if (!open) {
    return (
      <p>
        <button type="button" onClick={() => setOpen(true)}>
          Share read-only link…
        </button>
      </p>
    );
  }
  return (
    <section className="panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Share this {what}</h2>
      {created ? (
        <>
          <p>
            Anyone with this link can read this {what} only, without an account
            {created.link.expiresAt ? `, until ${created.link.expiresAt}` : ", with no expiry"}. It is shown once: copy it now.
          </p>
          <p>
            <label htmlFor={`${id}-url`}>Link</label>
            <input id={`${id}-url`} data-testid="share-url" readOnly value={created.url} onFocus={(e) => e.currentTarget.select()} className="wide" />
          </p>
          {created.link.contentHash ? (
            <p className="muted">
              Frozen snapshot, SHA-256 <code>{created.link.contentHash}</code>
            </p>
          ) : (
            <p className="muted">Live: the reviewer sees the {what} as it is when they open the link.</p>
          )}
        </>
      ) : (
        <form onSubmit={submit}>
          <fieldset>
            <legend>What the reviewer sees</legend>
            <label>
              <input type="radio" name="mode" value="frozen" checked={mode === "frozen"} onChange={() => setMode("frozen")} /> A frozen snapshot, taken now (default)
            </label>
            <label>
              <input type="radio" name="mode" value="live" checked={mode === "live"} onChange={() => setMode("live")} /> Live: follows the {what} as it changes
            </label>
          </fieldset>
          <p>
            <label htmlFor={`${id}-expiry`}>Expires</label>
            <select id={`${id}-expiry`} value={expiry} onChange={(e) => setExpiry(e.target.value)}>
              <option value="1">in 1 day</option>
              <option value="7">in 7 days</option>
              <option value="14">in 14 days</option>
              <option value="30">in 30 days</option>
              <option value="90">in 90 days</option>
              <option value="never">never (until revoked)</option>
            </select>
          </p>
          <p>
            <label htmlFor={`${id}-note`}>Note for your list (optional)</label>
            <input id={`${id}-note`} value={note} maxLength={200} onChange={(e) => setNote(e.target.value)} />
          </p>
          <FormAlert text={error} />
          <p>
            <button type="submit" disabled={busy}>
              {busy ? "Creating…" : "Create link"}
            </button>{" "}
            <button type="button" onClick={() => setOpen(false)}>
              Cancel
            </button>
          </p>
        </form>
      )}
    </section>
  );
}

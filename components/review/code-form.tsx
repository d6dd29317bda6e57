"use client";

import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { REVIEW_CODES, CODE_INFO, type ReviewField } from "@/lib/review/codes";
import { saveCodeBodySchema } from "@/lib/review/route-input";
import { callApi } from "../api-client";
import { FormAlert } from "../form-alert";

interface Current {
  code: string;
  sourceLocation: string;
  basis?: string;
  citations: string[];
  sourcesReadOn: string;
  version: number;
}

/**
 * The reviewer's own code and ledger for one cell, validated by the route's zod schema before it is
 * sent. A save against a newer version shows both versions and overwrites nothing.
 */
export function CodeForm({ protocolId, field, current }: { protocolId: string; field: ReviewField; current: Current | null }) {
  const router = useRouter();
  const id = useId();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [conflict, setConflict] = useState<{ current: Current | null } | null>(null);

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const body = {
      field,
      expectedVersion: current?.version ?? null,
      ledger: {
        code: String(form.get("code")),
        sourceLocation: String(form.get("sourceLocation")),
        ...(String(form.get("basis")).trim() ? { basis: String(form.get("basis")) } : {}),
        citations: String(form.get("citations")).split("\n").map((c) => c.trim()).filter(Boolean),
        sourcesReadOn: String(form.get("sourcesReadOn")),
      },
      reason: String(form.get("reason")),
    };
    const parsed = saveCodeBodySchema.safeParse(body);
    if (!parsed.success) {
      const found: Record<string, string> = {};
      for (const issue of parsed.error.issues) found[String(issue.path.at(-1))] ??= issue.message;
      return setErrors(found);
    }
    setErrors({});
    const saved = await callApi(`/api/v1/protocols/${protocolId}/codes`, "PUT", parsed.data);
    if (saved.ok) {
      setConflict(null);
      return router.refresh();
    }
    if (saved.status === 409) {
      const details = await fetch(`/api/v1/protocols/${protocolId}`).then((r) => r.json() as Promise<{ fields: { field: string; mine: { ledger: Current } | null }[] }>);
      setConflict({ current: details.fields.find((f) => f.field === field)?.mine?.ledger ?? null });
    }
    setErrors({ [saved.field?.split(".").at(-1) ?? "form"]: saved.message });
  }

  const err = (name: string) =>
    errors[name] ? (
      <span className="field-error" role="alert" id={`${id}-${name}-error`}>
        {errors[name]}
      </span>
    ) : null;
  const aria = (name: string) => (errors[name] ? { "aria-invalid": true, "aria-describedby": `${id}-${name}-error` } : {});

  return (
    <form onSubmit={submit} className="form-grid" aria-label={`Your code for ${field}`} data-testid={`code-form-${field}`}>
      <p>
        <label htmlFor={`${id}-code`}>Code</label>
        <select id={`${id}-code`} name="code" defaultValue={current?.code ?? "NR"} {...aria("code")}>
          {REVIEW_CODES.map((c) => (
            <option key={c} value={c}>
              {c}: {CODE_INFO[c].label}
            </option>
          ))}
        </select>
        {err("code")}
      </p>
      <p>
        <label htmlFor={`${id}-source`}>Source location</label>
        <input id={`${id}-source`} name="sourceLocation" defaultValue={current?.sourceLocation ?? ""} placeholder="e.g. Paper Sec. 3.2 and App. A.9" {...aria("sourceLocation")} />
        {err("sourceLocation")}
      </p>
      <p>
        <label htmlFor={`${id}-basis`}>Basis (required for E and P)</label>
        <textarea id={`${id}-basis`} name="basis" rows={3} defaultValue={current?.basis ?? ""} {...aria("basis")} />
        {err("basis")}
      </p>
      <p>
        <label htmlFor={`${id}-citations`}>Citations (one per line)</label>
        <textarea id={`${id}-citations`} name="citations" rows={2} defaultValue={current?.citations.join("\n") ?? ""} />
      </p>
      <p>
        <label htmlFor={`${id}-read`}>Sources read on</label>
        <input id={`${id}-read`} name="sourcesReadOn" type="date" defaultValue={current?.sourcesReadOn ?? new Date().toISOString().slice(0, 10)} {...aria("sourcesReadOn")} />
        {err("sourcesReadOn")}
      </p>
      <p>
        <label htmlFor={`${id}-reason`}>Reason for this change</label>
        <input id={`${id}-reason`} name="reason" defaultValue={current ? "" : "first coding"} {...aria("reason")} />
        {err("reason")}
      </p>
      {err("expectedVersion") ?? err("form")}
      {conflict ? (
        <div className="panel" data-testid="edit-conflict">
          <p>
            <strong>Saved meanwhile (version {conflict.current?.version}):</strong> {conflict.current?.code}, {conflict.current?.sourceLocation}: {conflict.current?.basis}
          </p>
          <p>Your unsaved version is still in the form. Reload to start from the saved one, then save again.</p>
        </div>
      ) : null}
      <p>
        <button type="submit">{current ? `Save as version ${current.version + 1}` : "Save code"}</button>
      </p>
    </form>
  );
}

/** Reconciles a cell (editors and admins): the consensus code and its rationale. */
export function ConsensusForm({ protocolId, field, current }: { protocolId: string; field: ReviewField; current: { code: string; rationale: string; version: number } | null }) {
  const router = useRouter();
  const id = useId();
  const [error, setError] = useState<string | null>(null);
  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const result = await callApi(`/api/v1/protocols/${protocolId}/consensus`, "PUT", {
      field,
      expectedVersion: current?.version ?? null,
      code: String(form.get("code")),
      rationale: String(form.get("rationale")),
      reason: String(form.get("reason")),
    });
    if (!result.ok) return setError(result.message);
    setError(null);
    router.refresh();
  }
  return (
    <form onSubmit={submit} className="form-grid" aria-label={`Consensus for ${field}`} data-testid={`consensus-form-${field}`}>
      <p>
        <label htmlFor={`${id}-code`}>Consensus code</label>
        <select id={`${id}-code`} name="code" defaultValue={current?.code ?? "NR"}>
          {REVIEW_CODES.map((c) => (
            <option key={c} value={c}>
              {c}: {CODE_INFO[c].label}
            </option>
          ))}
        </select>
      </p>
      <p>
        <label htmlFor={`${id}-rationale`}>Rationale</label>
        <textarea id={`${id}-rationale`} name="rationale" rows={2} defaultValue={current?.rationale ?? ""} />
      </p>
      <p>
        <label htmlFor={`${id}-reason`}>Reason for this change</label>
        <input id={`${id}-reason`} name="reason" />
      </p>
      <FormAlert text={error} />
      <p>
        <button type="submit">Reconcile</button>
      </p>
    </form>
  );
}

/** Restores one past version of the viewer's own cell, with a reason. */
export function RestoreForm({ codeId, version }: { codeId: string; version: number }) {
  const router = useRouter();
  const id = useId();
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      className="inline-form"
      onSubmit={async (event) => {
        event.preventDefault();
        const reason = String(new FormData(event.currentTarget).get("reason"));
        const result = await callApi(`/api/v1/review-codes/${codeId}/restore`, "POST", { version, reason });
        if (!result.ok) return setError(result.message);
        router.refresh();
      }}
    >
      <label htmlFor={`${id}-reason`}>Reason to restore version {version}</label>
      <input id={`${id}-reason`} name="reason" />
      <button type="submit">Restore version {version}</button>
      {error ? (
        <span className="field-error" role="alert">
          {error}
        </span>
      ) : null}
    </form>
  );
}

"use client";

import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { callApi } from "@/components/ui/call-api";
import { Alert, FormAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CharacterCounter, Field, Input, Select, Textarea, describedBy } from "@/components/ui/field";
import { useToast } from "@/components/ui/toast";
import { fieldErrors, serverFieldError, type FieldSpec, type IssueLike } from "@/lib/forms/field-errors";
import { REVIEW_CODES, CODE_INFO, type ReviewField } from "@/lib/review/codes";
import { consensusBodySchema, saveCodeBodySchema } from "@/lib/review/route-input";

interface Current {
  code: string;
  sourceLocation: string;
  basis?: string;
  citations: string[];
  sourcesReadOn: string;
  version: number;
}

const BASIS_MAX = 4000;
const RATIONALE_MAX = 4000;
const REASON_MAX = 2000;

const CODE_FIELDS: Record<string, FieldSpec> = {
  code: { label: "Code", allowed: "E, P, NR or NA" },
  sourceLocation: {
    label: "Source location",
    allowed: "where in the sources the code rests (e.g. Paper Sec. 3.2), at most 500 characters",
  },
  basis: { label: "Basis", custom: "a code of E or P needs the reviewer's basis" },
  citations: { label: "Citations", allowed: "one citation per line, at most 500 characters each" },
  sourcesReadOn: { label: "Sources read on", allowed: "the date the sources were read" },
  reason: { label: "Reason for this change", allowed: "a reason, at most 2000 characters" },
};
const CONSENSUS_FIELDS: Record<string, FieldSpec> = {
  code: { label: "Consensus code", allowed: "E, P, NR or NA" },
  rationale: { label: "Rationale", allowed: "why this is the consensus, at most 4000 characters" },
  reason: { label: "Reason for this change", allowed: "a reason, at most 2000 characters" },
};

/** The four codes as a select's options ("E: Explicit"). */
function CodeOptions() {
  return REVIEW_CODES.map((c) => (
    <option key={c} value={c}>
      {c}: {CODE_INFO[c].label}
    </option>
  ));
}

/** Issues of the nested ledger keyed by the ledger's own field names (the form's fields). */
const flatten = (issues: readonly IssueLike[]): IssueLike[] =>
  issues.map((i) => (i.path[0] === "ledger" ? { ...i, path: i.path.slice(1) } : i));

/**
 * The reviewer's own code and ledger for one cell, validated by the route's zod schema before it is
 * sent, errors in the form's words. A save against a newer version shows both versions and
 * overwrites nothing.
 */
export function CodeForm({ protocolId, field, current }: { protocolId: string; field: ReviewField; current: Current | null }) {
  const router = useRouter();
  const notify = useToast();
  const id = useId();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [conflict, setConflict] = useState<{ current: Current | null } | null>(null);
  const [basis, setBasis] = useState(current?.basis ?? "");
  const [reason, setReason] = useState(current ? "" : "first coding");

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const ledger = {
      code: String(form.get("code")),
      sourceLocation: String(form.get("sourceLocation")),
      ...(basis.trim() ? { basis } : {}),
      citations: String(form.get("citations"))
        .split("\n")
        .map((c) => c.trim())
        .filter(Boolean),
      sourcesReadOn: String(form.get("sourcesReadOn")),
    };
    const body = { field, expectedVersion: current?.version ?? null, ledger, reason };
    const parsed = saveCodeBodySchema.safeParse(body);
    if (!parsed.success) return setErrors(fieldErrors(flatten(parsed.error.issues), { ...ledger, reason }, CODE_FIELDS));
    setErrors({});
    const saved = await callApi(`/api/v1/protocols/${protocolId}/codes`, "PUT", parsed.data);
    if (saved.ok) {
      setConflict(null);
      notify({ title: `Saved as version ${(current?.version ?? 0) + 1}` });
      return router.refresh();
    }
    if (saved.status === 409) {
      const details = await fetch(`/api/v1/protocols/${protocolId}`).then(
        (r) => r.json() as Promise<{ fields: { field: string; mine: { ledger: Current } | null }[] }>,
      );
      setConflict({ current: details.fields.find((f) => f.field === field)?.mine?.ledger ?? null });
    }
    const { key, message } = serverFieldError(saved.field?.replace(/^ledger\./, ""), saved.message, CODE_FIELDS);
    setErrors({ [key]: message });
  }

  const aria = (name: string, extra: { hint?: boolean; counter?: boolean } = {}) => ({
    "aria-invalid": errors[name] ? true : undefined,
    "aria-describedby": describedBy(`${id}-${name}`, { error: errors[name], ...extra }),
  });

  return (
    <form
      onSubmit={submit}
      noValidate
      className="max-w-2xl space-y-4"
      aria-label={`Your code for ${field}`}
      data-testid={`code-form-${field}`}
    >
      <div className="grid gap-4 sm:grid-cols-2">
        <Field id={`${id}-code`} label="Code" error={errors.code}>
          <Select id={`${id}-code`} name="code" defaultValue={current?.code ?? "NR"} {...aria("code")}>
            <CodeOptions />
          </Select>
        </Field>
        <Field id={`${id}-sourcesReadOn`} label="Sources read on" error={errors.sourcesReadOn}>
          <Input
            id={`${id}-sourcesReadOn`}
            name="sourcesReadOn"
            type="date"
            defaultValue={current?.sourcesReadOn ?? new Date().toISOString().slice(0, 10)}
            {...aria("sourcesReadOn")}
          />
        </Field>
      </div>
      <Field id={`${id}-sourceLocation`} label="Source location" error={errors.sourceLocation}>
        <Input
          id={`${id}-sourceLocation`}
          name="sourceLocation"
          defaultValue={current?.sourceLocation ?? ""}
          placeholder="e.g. Paper Sec. 3.2 and App. A.9"
          {...aria("sourceLocation")}
        />
      </Field>
      <Field
        id={`${id}-basis`}
        label="Basis (required for E and P)"
        error={errors.basis}
        counter={<CharacterCounter length={basis.length} max={BASIS_MAX} />}
      >
        <Textarea
          id={`${id}-basis`}
          name="basis"
          rows={3}
          value={basis}
          onChange={(e) => setBasis(e.target.value)}
          {...aria("basis", { counter: true })}
        />
      </Field>
      <Field id={`${id}-citations`} label="Citations (one per line)" error={errors.citations}>
        <Textarea
          id={`${id}-citations`}
          name="citations"
          rows={2}
          defaultValue={current?.citations.join("\n") ?? ""}
          {...aria("citations")}
        />
      </Field>
      <Field
        id={`${id}-reason`}
        label="Reason for this change"
        error={errors.reason}
        counter={<CharacterCounter length={reason.length} max={REASON_MAX} />}
      >
        <Input
          id={`${id}-reason`}
          name="reason"
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          {...aria("reason", { counter: true })}
        />
      </Field>
      <FormAlert text={errors.expectedVersion ?? errors.form} />
      {conflict ? (
        <Alert tone="warning" role="alert" data-testid="edit-conflict" title={`Saved meanwhile (version ${conflict.current?.version})`}>
          <p>
            {conflict.current?.code}, {conflict.current?.sourceLocation}: {conflict.current?.basis}
          </p>
          <p>Your unsaved version is still in the form. Reload to start from the saved one, then save again.</p>
        </Alert>
      ) : null}
      <Button type="submit" variant="primary">
        {current ? `Save as version ${current.version + 1}` : "Save code"}
      </Button>
    </form>
  );
}

/** Reconciles a cell (editors and admins): the consensus code and its rationale. */
export function ConsensusForm({
  protocolId,
  field,
  current,
}: {
  protocolId: string;
  field: ReviewField;
  current: { code: string; rationale: string; version: number } | null;
}) {
  const router = useRouter();
  const notify = useToast();
  const id = useId();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [rationale, setRationale] = useState(current?.rationale ?? "");
  const [reason, setReason] = useState("");
  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const body = {
      field,
      expectedVersion: current?.version ?? null,
      code: String(new FormData(event.currentTarget).get("code")),
      rationale,
      reason,
    };
    const parsed = consensusBodySchema.safeParse(body);
    if (!parsed.success) return setErrors(fieldErrors(parsed.error.issues, body, CONSENSUS_FIELDS));
    const result = await callApi(`/api/v1/protocols/${protocolId}/consensus`, "PUT", parsed.data);
    if (!result.ok) {
      const { key, message } = serverFieldError(result.field, result.message, CONSENSUS_FIELDS);
      return setErrors({ [key]: message });
    }
    setErrors({});
    setReason("");
    notify({ title: "Consensus saved" });
    router.refresh();
  }
  return (
    <form
      onSubmit={submit}
      noValidate
      className="max-w-2xl space-y-4"
      aria-label={`Consensus for ${field}`}
      data-testid={`consensus-form-${field}`}
    >
      <Field id={`${id}-code`} label="Consensus code" error={errors.code}>
        <Select id={`${id}-code`} name="code" defaultValue={current?.code ?? "NR"}>
          <CodeOptions />
        </Select>
      </Field>
      <Field
        id={`${id}-rationale`}
        label="Rationale"
        error={errors.rationale}
        counter={<CharacterCounter length={rationale.length} max={RATIONALE_MAX} />}
      >
        <Textarea
          id={`${id}-rationale`}
          rows={2}
          value={rationale}
          onChange={(e) => setRationale(e.target.value)}
          aria-invalid={errors.rationale ? true : undefined}
          aria-describedby={describedBy(`${id}-rationale`, { error: errors.rationale, counter: true })}
        />
      </Field>
      <Field
        id={`${id}-reason`}
        label="Reason for this change"
        error={errors.reason}
        counter={<CharacterCounter length={reason.length} max={REASON_MAX} />}
      >
        <Input
          id={`${id}-reason`}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          aria-invalid={errors.reason ? true : undefined}
          aria-describedby={describedBy(`${id}-reason`, { error: errors.reason, counter: true })}
        />
      </Field>
      <FormAlert text={errors.form ?? errors.expectedVersion} />
      <Button type="submit" variant="primary">
        Reconcile
      </Button>
    </form>
  );
}

"use client";

import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import { FINALITY_POLICIES, PAPER_DELAYS_MS, SEPARATION_CONDITIONS, replayConfigSchema } from "@/lib/replay/config";
import { CONDITION_LABELS, POLICY_LABELS } from "@/lib/replay/display";
import { PAPER_TRACE } from "@/lib/replay/trace";
import { callApi } from "./api-client";

type Errors = Partial<Record<string, string>>;

const NUMBER_FIELDS = [
  ["schedules", "Schedules", 5, "Fixed schedules of the trace"],
  ["repetitions", "Repetitions", 10, "Repetitions of each schedule and delay"],
  ["concurrency", "Concurrency", 64, "Units replayed at once (the in-process replay; workers use their own setting)"],
  ["scoringMarginMs", "Scoring margin (ms)", 5, "B is scored this long after A's write was due"],
  ["environmentFailureRetries", "Retries after an environment failure", 1, "Predeclared: a unit whose service calls fail is retried this often, then recorded"],
  ["harnessLateRetries", "Retries when the harness was late", 3, "Predeclared: a unit whose own replay lagged past its delay is retried this often, then recorded"],
] as const;

/** "0, 25, 100" → [0, 25, 100]; anything that is not a whole number stays as text for the schema to reject by name. */
function parseDelays(text: string): unknown[] {
  return text
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((part) => (/^-?\d+$/.test(part) ? Number(part) : part));
}

/**
 * The experiment config form: validated in the browser by the same zod schema the API uses, errors
 * shown beside the field they name; the server's answer is shown the same way.
 */
export function NewExperimentForm() {
  const router = useRouter();
  const formRef = useRef<HTMLFormElement>(null);
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);

  function focusFirst(found: Errors) {
    const first = Object.keys(found)[0];
    if (first) formRef.current?.querySelector<HTMLElement>(`[data-field="${first}"]`)?.focus();
  }

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    let trace: unknown;
    try {
      trace = JSON.parse(String(form.get("trace")));
    } catch (error) {
      const found = { trace: `trace is not valid JSON: ${(error as Error).message}` };
      setErrors(found);
      return focusFirst(found);
    }
    const input = {
      delaysMs: parseDelays(String(form.get("delaysMs"))),
      ...Object.fromEntries(NUMBER_FIELDS.map(([name]) => [name, form.get(name) === "" ? undefined : Number(form.get(name))])),
      finalityPolicies: form.getAll("finalityPolicies"),
      separationConditions: form.getAll("separationConditions"),
      trace,
    };
    const parsed = replayConfigSchema.safeParse(input);
    if (!parsed.success) {
      const found: Errors = {};
      for (const issue of parsed.error.issues) {
        const field = String(issue.path[0] ?? "form");
        found[field] ??= `${issue.path.join(".")}: ${issue.message}`;
      }
      setErrors(found);
      return focusFirst(found);
    }
    setErrors({});
    setBusy(true);
    const created = await callApi<{ id: string }>("/api/v1/experiments", "POST", parsed.data);
    setBusy(false);
    if (created.ok) return router.push(`/experiments/${created.data.id}`);
    const found = { [created.field?.split(".")[0] ?? "form"]: created.message };
    setErrors(found);
    focusFirst(found);
  }

  const describe = (name: string, hint?: string) => ({
    "data-field": name,
    "aria-invalid": errors[name] ? true : undefined,
    "aria-describedby": [hint ? `${name}-hint` : null, errors[name] ? `${name}-error` : null].filter(Boolean).join(" ") || undefined,
  });
  const FieldError = ({ name }: { name: string }) =>
    errors[name] ? (
      <span id={`${name}-error`} className="field-error" role="alert">
        {errors[name]}
      </span>
    ) : null;

  return (
    <form ref={formRef} onSubmit={submit} noValidate className="form-grid">
      <p>
        <label htmlFor="delaysMs">Delays (ms, comma-separated)</label>
        <input id="delaysMs" name="delaysMs" defaultValue={PAPER_DELAYS_MS.join(", ")} {...describe("delaysMs", "hint")} />
        <span id="delaysMs-hint" className="muted">
          Nominal delays between a write&apos;s acknowledgement and its application; 0 applies before the answer.
        </span>
        <FieldError name="delaysMs" />
      </p>
      {NUMBER_FIELDS.map(([name, label, initial, hint]) => (
        <p key={name}>
          <label htmlFor={name}>{label}</label>
          <input id={name} name={name} type="number" inputMode="numeric" defaultValue={initial} {...describe(name, hint)} />
          <span id={`${name}-hint`} className="muted">
            {hint}
          </span>
          <FieldError name={name} />
        </p>
      ))}
      <fieldset {...describe("finalityPolicies")} tabIndex={-1}>
        <legend>Finality policies</legend>
        {FINALITY_POLICIES.map((p) => (
          <label key={p}>
            <input type="checkbox" name="finalityPolicies" value={p} defaultChecked /> {POLICY_LABELS[p]}
          </label>
        ))}
        <FieldError name="finalityPolicies" />
      </fieldset>
      <fieldset {...describe("separationConditions")} tabIndex={-1}>
        <legend>Separation conditions</legend>
        {SEPARATION_CONDITIONS.map((c) => (
          <label key={c}>
            <input type="checkbox" name="separationConditions" value={c} defaultChecked /> {CONDITION_LABELS[c]}
          </label>
        ))}
        <FieldError name="separationConditions" />
      </fieldset>
      <details open={Boolean(errors.trace)}>
        <summary>Trace (the paper&apos;s AgentDojo trace: {PAPER_TRACE.suite} / {PAPER_TRACE.taskId})</summary>
        <p>
          <label htmlFor="trace">Trace JSON (one state-changing call, replayed against the delayed-write service)</label>
          <textarea id="trace" name="trace" rows={12} className="wide" defaultValue={JSON.stringify(PAPER_TRACE, null, 2)} {...describe("trace")} />
          <FieldError name="trace" />
        </p>
      </details>
      <FieldError name="form" />
      <p>
        <button type="submit" disabled={busy}>
          {busy ? "Enqueueing…" : "Start experiment"}
        </button>
      </p>
    </form>
  );
}

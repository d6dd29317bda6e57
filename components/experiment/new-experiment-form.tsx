"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { CharacterCounter, CheckboxLabel, Field, Fieldset, Input, Select, Textarea, describedBy } from "@/components/ui/field";
import { FormAlert } from "@/components/ui/alert";
import { useFieldErrors } from "@/components/ui/use-field-errors";
import { CANARY_CONDITIONS, CANARY_MAX_TRIALS } from "@/lib/canary/config";
import {
  EXPERIMENT_NAME_MAX,
  EXPERIMENT_NOTES_MAX,
  createCanaryExperimentBodySchema,
  createExperimentBodySchema,
  type ExperimentKind,
} from "@/lib/experiments/experiment-schemas";
import { fieldErrors, serverFieldError, type FieldSpec } from "@/lib/forms/field-errors";
import { AGENTDOJO_SUITES } from "@/lib/traces/agentdojo-tools";
import { FINALITY_POLICIES, PAPER_DELAYS_MS, SEPARATION_CONDITIONS } from "@/lib/replay/rules/config";
import { CONDITION_LABELS, POLICY_LABELS } from "@/lib/format/replay-labels";
import { PAPER_TRACE } from "@/lib/replay/rules/trace";
import { callApi } from "../ui/call-api";
import { DEFAULT_RULE_FIELDS, ExclusionRuleFields, ruleFromFields, type RuleFieldsValue } from "../statistics/exclusion-rule-fields";

/** The form's own schemas: the API's body for each kind, exactly as the route parses it. */
const formSchema = createExperimentBodySchema;
const canaryFormSchema = createCanaryExperimentBodySchema;

const KINDS: ReadonlyArray<readonly [ExperimentKind, string, string]> = [
  ["replay", "The paper's replay", "Finality and separation under every policy and condition (Table 2)."],
  [
    "canary",
    "Canary reset check",
    "Run A plants a random canary in every surface it can write; after the condition's reset, run B searches every surface it can reach (the paper, §4.1: verified reset).",
  ],
];

/** Where the replayed traces come from: the paper's one, library traces (a suite, tasks, ids), or JSON. */
const TRACE_SOURCES = [
  ["paper", `The paper's trace (${PAPER_TRACE.taskId})`],
  ["suite", "Every ground-truth user task of a suite with a state-changing call"],
  ["tasks", "Ground-truth traces of some tasks"],
  ["ids", "Library traces by id"],
  ["json", "Traces as JSON"],
] as const;
type TraceSource = (typeof TRACE_SOURCES)[number][0];

const list = (text: string) => text.split(/[\s,]+/).filter(Boolean);

const NUMBER_FIELDS = [
  ["schedules", "Schedules", 5, "Fixed schedules of the trace", "a whole number from 1 to 100"],
  ["repetitions", "Repetitions", 10, "Repetitions of each schedule and delay", "a whole number from 1 to 1000"],
  [
    "concurrency",
    "Concurrency",
    64,
    "Units replayed at once (the in-process replay; workers use their own setting)",
    "a whole number from 1 to 512",
  ],
  ["scoringMarginMs", "Scoring margin (ms)", 5, "B is scored this long after A's write was due", "a whole number of ms from 0 to 1000"],
  [
    "environmentFailureRetries",
    "Retries after an environment failure",
    1,
    "Predeclared: a unit whose service calls fail is retried this often, then recorded",
    "a whole number from 0 to 5",
  ],
  [
    "harnessLateRetries",
    "Retries when the harness was late",
    3,
    "Predeclared: a unit whose own replay lagged past its delay is retried this often, then recorded",
    "a whole number from 0 to 10",
  ],
] as const;

/** The checkbox groups: every policy and condition, all chosen at first. */
const CHOICE_FIELDS = [
  { field: "finalityPolicies", legend: "Finality policies", choices: FINALITY_POLICIES.map((p) => [p, POLICY_LABELS[p]] as const) },
  {
    field: "separationConditions",
    legend: "Separation conditions",
    choices: SEPARATION_CONDITIONS.map((c) => [c, CONDITION_LABELS[c]] as const),
  },
];

/** Each field as the form labels it, and what it accepts: what every error message says. */
const FIELDS: Record<string, FieldSpec> = {
  name: { label: "Name" },
  notes: { label: "Notes" },
  delaysMs: {
    label: "Delays (ms)",
    allowed: "whole numbers from 0 to 10000, comma-separated (at most 16)",
    custom: "each delay may appear only once",
  },
  ...Object.fromEntries(NUMBER_FIELDS.map(([name, label, , , allowed]) => [name, { label, allowed }])),
  finalityPolicies: { label: "Finality policies", custom: "each policy only once" },
  separationConditions: { label: "Separation conditions", custom: "each condition only once" },
  traces: { label: "Traces JSON", allowed: "a list of traces, each with at least one state-changing call" },
  traceSelection: { label: "Library traces", allowed: "a suite, tasks such as banking/user_task_3, or trace ids" },
  conditions: { label: "Canary conditions", custom: "each condition only once" },
  trials: { label: "Trials per condition", allowed: `a whole number from 1 to ${CANARY_MAX_TRIALS}` },
  exclusionRule: { label: "Exclusion rule", allowed: "a target between 0 and 1 (e.g. 0.8), or none" },
};

/** "0, 25, 100" → [0, 25, 100]; anything that is not a whole number stays as text for the schema to refuse by position. */
function parseDelays(text: string): unknown[] {
  return text
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((part) => (/^-?\d+$/.test(part) ? Number(part) : part));
}

/** An empty number field is null, never left out: left out, the API would silently use its default. */
const numberOrNull = (raw: FormDataEntryValue | null) => (raw === null || String(raw).trim() === "" ? null : Number(raw));

/**
 * The experiment config form: validated in the browser by the API's own zod schema, each error beside
 * its field in the form's words (the label, and what is allowed); the server's answer the same way.
 */
export function NewExperimentForm() {
  const router = useRouter();
  const { formRef, errors, show } = useFieldErrors();
  const [busy, setBusy] = useState(false);
  const [name, setName] = useState("");
  const [notes, setNotes] = useState("");
  const [source, setSource] = useState<TraceSource>("paper");
  const [kind, setKind] = useState<ExperimentKind>("replay");
  const [rule, setRule] = useState<RuleFieldsValue>(DEFAULT_RULE_FIELDS);

  async function create(body: unknown) {
    show({});
    setBusy(true);
    const created = await callApi<{ id: string }>("/api/v1/experiments", "POST", body);
    setBusy(false);
    if (created.ok) return router.push(`/experiments/${created.data.id}`);
    const { key, message } = serverFieldError(created.field, created.message, FIELDS);
    show({ [key]: message });
  }

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const labels = { ...(name.trim() ? { name } : {}), ...(notes.trim() ? { notes } : {}) };
    if (kind === "canary") {
      const input = { kind, ...labels, conditions: form.getAll("conditions"), trials: numberOrNull(form.get("trials")) };
      const parsed = canaryFormSchema.safeParse(input);
      if (!parsed.success) return show(fieldErrors(parsed.error.issues, input, FIELDS));
      return create(parsed.data);
    }
    let traces: unknown;
    if (source === "json") {
      try {
        traces = JSON.parse(String(form.get("traces")));
      } catch (error) {
        return show({ traces: `Traces JSON is not valid JSON (${(error as Error).message})` });
      }
    }
    const selection = String(form.get("traceSelection") ?? "");
    const traceSelection =
      source === "suite"
        ? { suite: selection }
        : source === "tasks"
          ? { tasks: list(selection) }
          : source === "ids"
            ? { ids: list(selection) }
            : undefined;
    const input = {
      ...labels,
      delaysMs: parseDelays(String(form.get("delaysMs"))),
      ...Object.fromEntries(NUMBER_FIELDS.map(([field]) => [field, numberOrNull(form.get(field))])),
      finalityPolicies: form.getAll("finalityPolicies"),
      separationConditions: form.getAll("separationConditions"),
      ...(traces !== undefined && { traces }),
      ...(traceSelection && { traceSelection }),
      ...(ruleFromFields(rule) && { exclusionRule: ruleFromFields(rule) }),
    };
    const parsed = formSchema.safeParse(input);
    if (!parsed.success) return show(fieldErrors(parsed.error.issues, input, FIELDS));
    return create(parsed.data);
  }

  const control = (id: string, hint?: unknown, counter?: unknown) => ({
    id,
    name: id,
    "data-field": id,
    "aria-invalid": errors[id] ? true : undefined,
    "aria-describedby": describedBy(id, { hint, error: errors[id], counter }),
  });

  return (
    <form ref={formRef} onSubmit={submit} noValidate className="max-w-3xl space-y-8">
      <section className="space-y-4" aria-labelledby="labels-title">
        <h2 id="labels-title" className="text-base font-semibold">
          Name and notes
        </h2>
        <Field
          id="name"
          label="Name (optional)"
          hint="How lists, filters and share links name it; without one, by its id."
          error={errors.name}
          counter={<CharacterCounter length={name.length} max={EXPERIMENT_NAME_MAX} />}
        >
          <Input {...control("name", true, true)} value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" />
        </Field>
        <Field
          id="notes"
          label="Notes (optional)"
          hint="What it is for, what changed: shown on its page and in the list."
          error={errors.notes}
          counter={<CharacterCounter length={notes.length} max={EXPERIMENT_NOTES_MAX} />}
        >
          <Textarea {...control("notes", true, true)} rows={3} value={notes} onChange={(e) => setNotes(e.target.value)} />
        </Field>
      </section>

      <Fieldset id="kind" legend="Kind" data-field="kind" tabIndex={-1}>
        <div className="grid gap-1.5">
          {KINDS.map(([value, label, hint]) => (
            <CheckboxLabel key={value} type="radio" name="kind" value={value} checked={kind === value} onChange={() => setKind(value)}>
              {label} <span className="text-muted-foreground">— {hint}</span>
            </CheckboxLabel>
          ))}
        </div>
      </Fieldset>

      {kind === "canary" ? (
        <>
          <Field
            id="trials"
            label="Trials per condition"
            hint={`Each trial plants a new random canary. Allowed: a whole number from 1 to ${CANARY_MAX_TRIALS}.`}
            error={errors.trials}
          >
            <Input {...control("trials", true)} type="number" inputMode="numeric" defaultValue={5} required />
          </Field>
          <Fieldset
            id="conditions"
            legend="Canary conditions"
            hint="Expected: B finds the canary under shared state, and nothing under namespacing or a verified reset."
            error={errors.conditions}
            data-field="conditions"
            tabIndex={-1}
          >
            <div className="grid gap-1.5 sm:grid-cols-2">
              {CANARY_CONDITIONS.map((c) => (
                <CheckboxLabel key={c} type="checkbox" name="conditions" value={c} defaultChecked>
                  {CONDITION_LABELS[c]}
                </CheckboxLabel>
              ))}
            </div>
          </Fieldset>
        </>
      ) : (
        <>
          <ReplayFields control={control} errors={errors} source={source} setSource={setSource} />
          <ExclusionRuleFields kind="experiment" value={rule} onChange={setRule} error={errors.exclusionRule} />
        </>
      )}
      <FormAlert text={errors.form} />
      <Button type="submit" variant="primary" disabled={busy}>
        {busy ? "Enqueueing…" : "Start experiment"}
      </Button>
    </form>
  );
}

/** The paper's replay's fields: its grid, policies and conditions, and traces. */
function ReplayFields({
  control,
  errors,
  source,
  setSource,
}: {
  control: (id: string, hint?: unknown, counter?: unknown) => Record<string, unknown>;
  errors: Record<string, string | undefined>;
  source: TraceSource;
  setSource: (source: TraceSource) => void;
}) {
  return (
    <>
      <section className="space-y-4" aria-labelledby="grid-title">
        <h2 id="grid-title" className="text-base font-semibold">
          Grid
        </h2>
        <Field
          id="delaysMs"
          label="Delays (ms, comma-separated)"
          hint="Nominal delays between a write's acknowledgement and its application; 0 applies before the answer. Whole numbers from 0 to 10000."
          error={errors.delaysMs}
        >
          <Input {...control("delaysMs", true)} defaultValue={PAPER_DELAYS_MS.join(", ")} inputMode="numeric" />
        </Field>
        <div className="grid gap-4 sm:grid-cols-2">
          {NUMBER_FIELDS.map(([field, label, initial, hint, allowed]) => (
            <Field key={field} id={field} label={label} hint={`${hint}. Allowed: ${allowed}.`} error={errors[field]}>
              <Input {...control(field, true)} type="number" inputMode="numeric" defaultValue={initial} required />
            </Field>
          ))}
        </div>
      </section>

      {CHOICE_FIELDS.map(({ field, legend, choices }) => (
        <Fieldset key={field} id={field} legend={legend} error={errors[field]} data-field={field} tabIndex={-1}>
          <div className="grid gap-1.5 sm:grid-cols-2">
            {choices.map(([value, label]) => (
              <CheckboxLabel key={value} type="checkbox" name={field} value={value} defaultChecked>
                {label}
              </CheckboxLabel>
            ))}
          </div>
        </Fieldset>
      ))}

      <Fieldset
        id="traceSource"
        legend="Traces"
        hint="Each trace is replayed under the whole grid: every state-changing call becomes a delayed write in its own key, read-only calls answer from the recorded trace."
        error={errors.traceSelection}
        data-field="traceSource"
        tabIndex={-1}
      >
        <div className="grid gap-1.5">
          {TRACE_SOURCES.map(([value, label]) => (
            <CheckboxLabel
              key={value}
              type="radio"
              name="traceSource"
              value={value}
              checked={source === value}
              onChange={() => setSource(value)}
            >
              {label}
            </CheckboxLabel>
          ))}
        </div>
        {source === "suite" ? (
          <Field id="traceSelection" label="Suite" hint="AgentDojo v1.2.1's ground truth (the trace library)." className="mt-3">
            <Select {...control("traceSelection", true)} defaultValue="banking">
              {AGENTDOJO_SUITES.map((suite) => (
                <option key={suite} value={suite}>
                  {suite}
                </option>
              ))}
            </Select>
          </Field>
        ) : source === "tasks" || source === "ids" ? (
          <Field
            id="traceSelection"
            label={source === "tasks" ? "Tasks (comma-separated)" : "Trace ids (comma-separated)"}
            hint={
              source === "tasks"
                ? "e.g. banking/user_task_3, banking/user_task_15"
                : "ids from the trace library's pages or GET /api/v1/traces"
            }
            className="mt-3"
          >
            <Input {...control("traceSelection", true)} autoComplete="off" />
          </Field>
        ) : source === "json" ? (
          <Field
            id="traces"
            label="Traces JSON"
            hint="A list of traces {suite, taskId, calls: [{function, args, result}]}, each with at least one state-changing call."
            error={errors.traces}
            className="mt-3"
          >
            <Textarea
              {...control("traces", true)}
              rows={12}
              className="font-mono text-xs"
              defaultValue={JSON.stringify([PAPER_TRACE], null, 2)}
            />
          </Field>
        ) : null}
      </Fieldset>
    </>
  );
}

"use client";

import { Plus, Trash2 } from "lucide-react";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { callApi } from "@/components/ui/call-api";
import { Alert, FormAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CharacterCounter, Field, Input, Select, Textarea } from "@/components/ui/field";
import { TimeOption } from "@/components/ui/time";
import { useToast } from "@/components/ui/toast";
import {
  ARGUMENT_LIMITS,
  argumentRevisionSchema,
  EVIDENCE_KINDS,
  QUESTIONS,
  ROUTE_KIND_LABELS,
  ROUTE_KINDS,
  TREATMENT_LABELS,
  TREATMENTS,
  type ArgumentRoute,
  type CompletionArgument,
  type EvidenceLink,
  type QuestionKey,
} from "@/lib/review/completion-schema";

/** What the evidence pickers offer: recent experiments, evaluations and this protocol's codes the editor can see. */
export interface EvidenceOption {
  kind: EvidenceLink["kind"];
  id: string;
  label: string;
  /** An instant the option's text ends with (an unnamed experiment's), in the reader's time. */
  at?: string;
}

const KIND_LABELS: Record<EvidenceLink["kind"], string> = {
  experiment: "Experiment",
  evaluation: "Evaluation",
  review_code: "Review code",
};

/** Evidence links as a list: kind and item per row, added and removed one by one. */
function EvidenceList({
  label,
  links,
  options,
  onChange,
}: {
  label: string;
  links: EvidenceLink[];
  options: EvidenceOption[];
  onChange: (links: EvidenceLink[]) => void;
}) {
  const id = useId();
  const set = (i: number, patch: Partial<EvidenceLink>) => onChange(links.map((l, j) => (j === i ? { ...l, ...patch } : l)));
  return (
    <fieldset className="space-y-2">
      <legend className="text-sm font-medium">{label}</legend>
      {links.map((link, i) => (
        <div key={i} className="grid items-end gap-2 sm:grid-cols-[10rem_1fr_auto]">
          <Field id={`${id}-${i}-kind`} label={`${label}, link ${i + 1}: kind`}>
            <Select
              id={`${id}-${i}-kind`}
              value={link.kind}
              onChange={(e) => set(i, { kind: e.target.value as EvidenceLink["kind"], id: "" })}
            >
              {EVIDENCE_KINDS.map((k) => (
                <option key={k} value={k}>
                  {KIND_LABELS[k]}
                </option>
              ))}
            </Select>
          </Field>
          <Field id={`${id}-${i}-id`} label={`${label}, link ${i + 1}: item`}>
            <Select id={`${id}-${i}-id`} value={link.id} onChange={(e) => set(i, { id: e.target.value })}>
              <option value="">Choose…</option>
              {options
                .filter((o) => o.kind === link.kind)
                .map((o) =>
                  o.at ? (
                    <TimeOption key={o.id} value={o.id} label={o.label} iso={o.at} />
                  ) : (
                    <option key={o.id} value={o.id}>
                      {o.label}
                    </option>
                  ),
                )}
              {link.id && !options.some((o) => o.id === link.id) ? <option value={link.id}>{link.id}</option> : null}
            </Select>
          </Field>
          <Button
            size="sm"
            onClick={() => onChange(links.filter((_, j) => j !== i))}
            aria-label={`Remove ${label.toLowerCase()} link ${i + 1}`}
          >
            <Trash2 aria-hidden="true" />
          </Button>
        </div>
      ))}
      <Button size="sm" onClick={() => onChange([...links, { kind: "experiment", id: "" }])}>
        <Plus aria-hidden="true" />
        Add evidence
      </Button>
    </fieldset>
  );
}

const newRoute = (): ArgumentRoute => ({
  kind: "descendant_processes",
  description: "",
  scope: "in",
  scopeReason: "",
  treatment: "unresolved",
  treatmentNote: "",
  evidence: [],
});

/**
 * The argument's editor: the four answers with their ledgers, question 3's routes, question 4's
 * evidence, and a reason. Validated by the route's own zod schema before it is sent; a save over a
 * newer version shows that version and overwrites nothing.
 */
export function ArgumentEditor({
  protocolId,
  version,
  initial,
  options,
}: {
  protocolId: string;
  version: number | null;
  initial: CompletionArgument;
  options: EvidenceOption[];
}) {
  const router = useRouter();
  const notify = useToast();
  const id = useId();
  const [argument, setArgument] = useState<CompletionArgument>(initial);
  const [reason, setReason] = useState(version === null ? "first draft" : "");
  const [error, setError] = useState<string | null>(null);
  const [conflict, setConflict] = useState<{ version: number; argument: CompletionArgument } | null>(null);

  const setAnswer = (key: QuestionKey, patch: Partial<CompletionArgument["questions"][QuestionKey]>) =>
    setArgument((a) => ({ ...a, questions: { ...a.questions, [key]: { ...a.questions[key], ...patch } } }));
  const setRoute = (i: number, patch: Partial<ArgumentRoute>) =>
    setArgument((a) => ({ ...a, routes: a.routes.map((r, j) => (j === i ? { ...r, ...patch } : r)) }));

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const questions = Object.fromEntries(
      Object.entries(argument.questions).map(([k, a]) => [k, { ...a, citations: a.citations.map((c) => c.trim()).filter(Boolean) }]),
    );
    const parsed = argumentRevisionSchema.safeParse({ expectedVersion: version, argument: { ...argument, questions }, reason });
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return setError(`${issue.path.join(".")}: ${issue.message}`);
    }
    setError(null);
    const result = await callApi<{ version: number }>(`/api/v1/protocols/${protocolId}/completion-argument`, "POST", parsed.data);
    if (result.ok) {
      setConflict(null);
      notify({ title: `Saved as version ${result.data.version}` });
      return router.refresh();
    }
    if (result.status === 409) {
      const current = await fetch(`/api/v1/protocols/${protocolId}/completion-argument`).then(
        (r) => r.json() as Promise<{ current: { version: number; argument: CompletionArgument } | null }>,
      );
      setConflict(current.current);
    }
    setError(result.field ? `${result.field}: ${result.message.replace(/^[\w.]+:\s*/, "")}` : result.message);
  }

  return (
    <form onSubmit={submit} noValidate className="space-y-8" aria-label="Edit the completion argument" data-testid="argument-editor">
      {QUESTIONS.map((q) => {
        const a = argument.questions[q.key];
        const base = `${id}-${q.key}`;
        return (
          <fieldset key={q.key} className="space-y-3 rounded-lg border border-border p-4" data-testid={`editor-${q.key}`}>
            <legend className="px-1 text-sm font-semibold">
              {q.number}. {q.text}
            </legend>
            <Field
              id={`${base}-answer`}
              label={`Answer to question ${q.number}`}
              counter={<CharacterCounter length={a.answer.length} max={ARGUMENT_LIMITS.answer} />}
            >
              <Textarea
                id={`${base}-answer`}
                rows={4}
                value={a.answer}
                onChange={(e) => setAnswer(q.key, { answer: e.target.value })}
                aria-describedby={`${base}-answer-counter`}
              />
            </Field>
            <div className="grid gap-3 sm:grid-cols-3">
              <Field id={`${base}-source`} label={`Question ${q.number}: source location`}>
                <Input
                  id={`${base}-source`}
                  value={a.sourceLocation}
                  onChange={(e) => setAnswer(q.key, { sourceLocation: e.target.value })}
                />
              </Field>
              <Field id={`${base}-citations`} label={`Question ${q.number}: citations (one per line)`}>
                <Textarea
                  id={`${base}-citations`}
                  rows={1}
                  value={a.citations.join("\n")}
                  onChange={(e) => setAnswer(q.key, { citations: e.target.value.split("\n") })}
                />
              </Field>
              <Field id={`${base}-read`} label={`Question ${q.number}: sources read on`}>
                <Input
                  id={`${base}-read`}
                  type="date"
                  value={a.sourcesReadOn ?? ""}
                  onChange={(e) => setAnswer(q.key, { sourcesReadOn: e.target.value || null })}
                />
              </Field>
            </div>
            {q.key === "remaining" ? (
              <div className="space-y-4" data-testid="editor-routes">
                <h3 className="text-sm font-semibold">Routes</h3>
                {argument.routes.map((r, i) => (
                  <fieldset key={i} className="space-y-3 rounded-md border border-border p-3" data-testid={`editor-route-${i}`}>
                    <legend className="px-1 text-sm font-medium">Route {i + 1}</legend>
                    <div className="grid gap-3 sm:grid-cols-3">
                      <Field id={`${id}-route-${i}-kind`} label={`Route ${i + 1}: kind`}>
                        <Select
                          id={`${id}-route-${i}-kind`}
                          value={r.kind}
                          onChange={(e) => setRoute(i, { kind: e.target.value as ArgumentRoute["kind"] })}
                        >
                          {ROUTE_KINDS.map((k) => (
                            <option key={k} value={k}>
                              {ROUTE_KIND_LABELS[k]}
                            </option>
                          ))}
                        </Select>
                      </Field>
                      <Field id={`${id}-route-${i}-scope`} label={`Route ${i + 1}: scope`}>
                        <Select
                          id={`${id}-route-${i}-scope`}
                          value={r.scope}
                          onChange={(e) => setRoute(i, { scope: e.target.value as "in" | "out" })}
                        >
                          <option value="in">In the declared scope</option>
                          <option value="out">Out of the declared scope</option>
                        </Select>
                      </Field>
                      <Field id={`${id}-route-${i}-treatment`} label={`Route ${i + 1}: treatment`}>
                        <Select
                          id={`${id}-route-${i}-treatment`}
                          value={r.treatment}
                          onChange={(e) => setRoute(i, { treatment: e.target.value as ArgumentRoute["treatment"] })}
                        >
                          {TREATMENTS.map((t) => (
                            <option key={t} value={t}>
                              {TREATMENT_LABELS[t]}
                            </option>
                          ))}
                        </Select>
                      </Field>
                    </div>
                    <Field id={`${id}-route-${i}-description`} label={`Route ${i + 1}: description`}>
                      <Input
                        id={`${id}-route-${i}-description`}
                        value={r.description}
                        onChange={(e) => setRoute(i, { description: e.target.value })}
                      />
                    </Field>
                    <div className="grid gap-3 sm:grid-cols-2">
                      <Field
                        id={`${id}-route-${i}-scopeReason`}
                        label={`Route ${i + 1}: scope reason${r.scope === "out" ? " (required)" : ""}`}
                      >
                        <Input
                          id={`${id}-route-${i}-scopeReason`}
                          value={r.scopeReason}
                          onChange={(e) => setRoute(i, { scopeReason: e.target.value })}
                        />
                      </Field>
                      <Field id={`${id}-route-${i}-treatmentNote`} label={`Route ${i + 1}: treatment note`}>
                        <Input
                          id={`${id}-route-${i}-treatmentNote`}
                          value={r.treatmentNote}
                          onChange={(e) => setRoute(i, { treatmentNote: e.target.value })}
                        />
                      </Field>
                    </div>
                    <EvidenceList
                      label={`Route ${i + 1} evidence`}
                      links={r.evidence}
                      options={options}
                      onChange={(evidence) => setRoute(i, { evidence })}
                    />
                    <Button size="sm" onClick={() => setArgument((a) => ({ ...a, routes: a.routes.filter((_, j) => j !== i) }))}>
                      <Trash2 aria-hidden="true" />
                      Remove route {i + 1}
                    </Button>
                  </fieldset>
                ))}
                <Button size="sm" onClick={() => setArgument((a) => ({ ...a, routes: [...a.routes, newRoute()] }))}>
                  <Plus aria-hidden="true" />
                  Add route
                </Button>
              </div>
            ) : null}
            {q.key === "finality" ? (
              <EvidenceList
                label="Question 4 evidence"
                links={argument.evidence}
                options={options}
                onChange={(evidence) => setArgument((a) => ({ ...a, evidence }))}
              />
            ) : null}
          </fieldset>
        );
      })}
      <Field
        id={`${id}-reason`}
        label="Reason for this change"
        counter={<CharacterCounter length={reason.length} max={ARGUMENT_LIMITS.reason} />}
      >
        <Input id={`${id}-reason`} value={reason} onChange={(e) => setReason(e.target.value)} aria-describedby={`${id}-reason-counter`} />
      </Field>
      <FormAlert text={error} />
      {conflict ? (
        <Alert tone="warning" role="alert" data-testid="argument-conflict" title={`Saved meanwhile (version ${conflict.version})`}>
          <p>
            Someone saved version {conflict.version} since you opened this page. Your unsaved version is still in the form; reload to start
            from the saved one, then save again.
          </p>
        </Alert>
      ) : null}
      <Button type="submit" variant="primary">
        {version === null ? "Save the argument" : `Save as version ${version + 1}`}
      </Button>
    </form>
  );
}

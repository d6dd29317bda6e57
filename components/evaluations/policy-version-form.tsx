"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { callApi } from "@/components/ui/call-api";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { describeEntry } from "@/lib/evaluations/policy";
import { readOnlyRowsHidingWrites } from "@/lib/evaluations/read-only-warning";
import { policyFromRows, policyRowsOf, type PolicyRow } from "@/lib/evaluations/policy-rows";
import {
  effectPolicyConflictSchema,
  setEffectPolicyBodySchema,
  type EffectPolicy,
  type EffectPolicyConflict,
} from "@/lib/evaluations/effect-policy-schema";
import { fieldErrors, messageAfterField, serverFieldError, type FieldSpec } from "@/lib/forms/field-errors";
import type { TemplateSuggestion } from "@/lib/evaluations/read/template-suggestions";
import { EffectPolicyEditor } from "./effect-policy-editor";

const FIELDS: Record<string, FieldSpec> = {
  tools: { label: "Effect policy", allowed: "a tool name or pattern and one of the four classes per row" },
};

/** A policy as one line: `tool → class; …`. */
const policyLine = (policy: EffectPolicy) =>
  Object.entries(policy.tools)
    .map(([tool, entry]) => `${tool} → ${describeEntry(entry)}`)
    .join("; ") || "no tool named";

/**
 * Saves the rows as the policy's next version (PUT …/effect-policy), whose recompute runs as a job:
 * the page shows its progress and reloads its figures once it is applied. It sends the version it was opened at (then the one it
 * saved): a version saved meanwhile by someone else is refused (409) and shown beside these rows,
 * to load it or to save these rows over it.
 */
export function PolicyVersionForm({
  evaluationId,
  policy,
  version,
  unclassified,
  suggested = [],
  suggestedTemplates = [],
  writesByTool = {},
}: {
  evaluationId: string;
  policy: EffectPolicy;
  version: number;
  unclassified: string[];
  /** Tools whose recorded effects show writes (read-only-warning.ts), with how many: a read-only row matching one is warned about. */
  writesByTool?: Record<string, number>;
  /** Classes recorders suggest that this version does not hold: one button puts them into the rows. */
  suggested?: PolicyRow[];
  /** Surface templates suggested for tools whose entry has none: one button puts them into the rows. */
  suggestedTemplates?: TemplateSuggestion[];
}) {
  const router = useRouter();
  const [rows, setRows] = useState<PolicyRow[]>(() => policyRowsOf(policy));
  // Not the `version` prop: a refresh for another reason must not move the base these rows were edited from.
  const [baseVersion, setBaseVersion] = useState(version);
  const [error, setError] = useState<string>();
  const [conflict, setConflict] = useState<{ message: string; details: EffectPolicyConflict }>();
  const [saved, setSaved] = useState<{ version: number; unchanged: boolean }>();
  const [busy, setBusy] = useState(false);
  const named = new Set(rows.map((r) => r.tool.trim()));
  const readOnlyWrites = readOnlyRowsHidingWrites(rows, writesByTool);
  const toAdd = suggested.filter((s) => !rows.some((r) => r.tool.trim() === s.tool && r.effectClass === s.effectClass));
  const templatesToAdd = suggestedTemplates.filter((s) => !rows.some((r) => r.tool.trim() === s.tool && r[s.op]?.trim()));

  /** The suggested templates into the rows: a tool's row takes the template where it has none, a tool without a row gets one (its suggested class, else the editor's default). */
  function addSuggestedTemplates() {
    const next = rows.map((r) => ({ ...r }));
    for (const s of templatesToAdd) {
      const row = next.find((r) => r.tool.trim() === s.tool);
      if (row) row[s.op] = s.template;
      else
        next.push({
          tool: s.tool,
          effectClass: suggested.find((c) => c.tool === s.tool)?.effectClass ?? "async_handle",
          [s.op]: s.template,
        });
    }
    setRows(next);
  }

  /** The suggested classes into the rows: a tool's row takes the suggested class, a tool without one gets a row. */
  function addSuggested() {
    const next = rows.map((r) => ({ ...r, effectClass: suggested.find((s) => s.tool === r.tool.trim())?.effectClass ?? r.effectClass }));
    for (const s of suggested) if (!next.some((r) => r.tool.trim() === s.tool)) next.push({ ...s });
    setRows(next);
  }

  async function save(base: number) {
    setSaved(undefined);
    setConflict(undefined);
    const built = policyFromRows(rows);
    if (!built.ok) return setError(built.message);
    const input = { ...built.policy, baseVersion: base };
    const parsed = setEffectPolicyBodySchema.safeParse(input);
    if (!parsed.success) return setError(fieldErrors(parsed.error.issues, input, FIELDS).tools ?? parsed.error.issues[0]?.message);
    setError(undefined);
    setBusy(true);
    const answer = await callApi<{ version: number; unchanged?: true }>(
      `/api/v1/evaluations/${evaluationId}/effect-policy`,
      "PUT",
      parsed.data,
    );
    setBusy(false);
    if (!answer.ok) {
      const details = answer.code === "edit_conflict" ? effectPolicyConflictSchema.safeParse(answer.details) : undefined;
      if (details?.success) return setConflict({ message: messageAfterField(answer.message, "baseVersion"), details: details.data });
      return setError(serverFieldError(answer.field, answer.message, FIELDS).message);
    }
    setBaseVersion(answer.data.version);
    setSaved({ version: answer.data.version, unchanged: answer.data.unchanged === true });
    router.refresh();
  }

  function loadCurrent({ current }: EffectPolicyConflict) {
    setRows(policyRowsOf(current.policy));
    setBaseVersion(current.version);
    setConflict(undefined);
    router.refresh();
  }

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void save(baseVersion);
      }}
      noValidate
      className="space-y-4 rounded-lg border border-border bg-card p-4"
      aria-labelledby="policy-form-title"
    >
      <h3 id="policy-form-title" className="text-base font-semibold">
        Save a new policy version
      </h3>
      <p className="text-sm text-muted-foreground">
        Edited from version {baseVersion}. The earlier versions stay; every run&apos;s finality is recomputed under the new one in the
        background, and the figures above change to it all at once when it is done.
      </p>
      {toAdd.length > 0 ? (
        <Button size="sm" onClick={addSuggested} data-testid="add-suggested-classes">
          Put the {toAdd.length} suggested class{toAdd.length === 1 ? "" : "es"} into these rows
        </Button>
      ) : null}
      {templatesToAdd.length > 0 ? (
        <Button size="sm" onClick={addSuggestedTemplates} data-testid="add-suggested-templates">
          Put the {templatesToAdd.length} suggested surface template{templatesToAdd.length === 1 ? "" : "s"} into these rows
        </Button>
      ) : null}
      <EffectPolicyEditor
        id="tools"
        rows={rows}
        onChange={setRows}
        error={error}
        suggestions={unclassified.filter((tool) => !named.has(tool))}
      />
      {conflict ? (
        <Alert
          tone="warning"
          role="alert"
          title={`Not saved: the policy changed to version ${conflict.details.current.version} while you edited`}
          data-testid="policy-conflict"
        >
          <p>{conflict.message}</p>
          <dl className="grid gap-x-3 gap-y-1 sm:grid-cols-[auto_minmax(0,1fr)]">
            <dt className="font-medium">Version {conflict.details.current.version} (current)</dt>
            <dd data-testid="policy-conflict-current">{policyLine(conflict.details.current.policy)}</dd>
            <dt className="font-medium">Yours (from version {baseVersion})</dt>
            <dd data-testid="policy-conflict-yours">{policyLine(conflict.details.yours)}</dd>
          </dl>
          <div className="flex flex-wrap gap-2 pt-1">
            <Button size="sm" onClick={() => loadCurrent(conflict.details)}>
              Load version {conflict.details.current.version}
            </Button>
            <Button size="sm" disabled={busy} onClick={() => void save(conflict.details.current.version)}>
              Save mine over version {conflict.details.current.version}
            </Button>
          </div>
        </Alert>
      ) : null}
      {saved ? (
        <Alert tone="success" role="status" data-testid="policy-saved">
          <p>
            {saved.unchanged
              ? `Nothing to save: the policy classifies every tool as version ${saved.version} does, so no version was made.`
              : `Saved as version ${saved.version}; its recompute has started and the figures above change to it when it is applied.`}
          </p>
        </Alert>
      ) : null}
      {readOnlyWrites.length > 0 ? (
        <Alert tone="warning" role="status" data-testid="policy-read-only-writes">
          {readOnlyWrites.map(({ tool, writes }) => (
            <p key={tool}>
              {tool} has {writes} recorded effect{writes === 1 ? "" : "s"} that show{writes === 1 ? "s" : ""} a write (a surface written, a
              handle to follow, or pending at scoring): classed read-only, they never hold a label open and the trace library calls its
              calls read-only. Keep read-only only if the tool changes nothing.
            </p>
          ))}
        </Alert>
      ) : null}
      <Button type="submit" variant="primary" disabled={busy}>
        {busy ? "Saving…" : "Save as a new version"}
      </Button>
    </form>
  );
}

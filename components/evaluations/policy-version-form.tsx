"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { callApi } from "@/components/api-client";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { policyFromRows, policyRowsOf, type PolicyRow } from "@/lib/evaluations/policy-rows";
import { effectPolicySchema, type EffectPolicy } from "@/lib/evaluations/schemas";
import { fieldErrors, serverFieldError, type FieldSpec } from "@/lib/forms/field-errors";
import { EffectPolicyEditor } from "./effect-policy-editor";

const FIELDS: Record<string, FieldSpec> = { tools: { label: "Effect policy", allowed: "a tool name or pattern and one of the four classes per row" } };

/** Saves the rows as the policy's next version (PUT …/effect-policy), which recomputes every run's audit; then the page reloads its figures. */
export function PolicyVersionForm({ evaluationId, policy, unclassified }: { evaluationId: string; policy: EffectPolicy; unclassified: string[] }) {
  const router = useRouter();
  const [rows, setRows] = useState<PolicyRow[]>(() => policyRowsOf(policy));
  const [error, setError] = useState<string>();
  const [saved, setSaved] = useState<number>();
  const [busy, setBusy] = useState(false);
  const named = new Set(rows.map((r) => r.tool.trim()));

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSaved(undefined);
    const built = policyFromRows(rows);
    if (!built.ok) return setError(built.message);
    const parsed = effectPolicySchema.safeParse(built.policy);
    if (!parsed.success) return setError(fieldErrors(parsed.error.issues, built.policy, FIELDS).tools ?? parsed.error.issues[0]?.message);
    setError(undefined);
    setBusy(true);
    const answer = await callApi<{ version: number }>(`/api/v1/evaluations/${evaluationId}/effect-policy`, "PUT", parsed.data);
    setBusy(false);
    if (!answer.ok) return setError(serverFieldError(answer.field, answer.message, FIELDS).message);
    setSaved(answer.data.version);
    router.refresh();
  }

  return (
    <form onSubmit={submit} noValidate className="space-y-4 rounded-lg border border-border bg-card p-4" aria-labelledby="policy-form-title">
      <h3 id="policy-form-title" className="text-base font-semibold">
        Save a new policy version
      </h3>
      <p className="text-sm text-muted-foreground">The earlier versions stay; every run&apos;s finality is recomputed under the new one.</p>
      <EffectPolicyEditor id="tools" rows={rows} onChange={setRows} error={error} suggestions={unclassified.filter((tool) => !named.has(tool))} />
      {saved ? (
        <Alert tone="success" role="status" data-testid="policy-saved">
          <p>Saved as version {saved}; the figures above are recomputed.</p>
        </Alert>
      ) : null}
      <Button type="submit" variant="primary" disabled={busy}>
        {busy ? "Saving and recomputing…" : "Save as a new version"}
      </Button>
    </form>
  );
}

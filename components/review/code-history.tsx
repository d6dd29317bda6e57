"use client";

import { History } from "lucide-react";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { callApi } from "@/components/ui/call-api";
import { FormAlert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Field, Input, Select } from "@/components/ui/field";
import { Time } from "@/components/ui/time";
import { useToast } from "@/components/ui/toast";

export interface HistoryEntry {
  id: string;
  version: number;
  kind: string;
  createdAt: string;
  reason: string;
  /** The author's email; null for a revision no account made (the paper's seeded codes). */
  author: string | null;
  diff: { key: string; before: string; after: string }[];
}

/**
 * A cell's versions, newest first, each collapsed to one line (its diff on demand), and one restore
 * action below them: pick a past version and say why.
 */
export function CodeHistory({
  entries,
  codeId,
  currentVersion,
  testId,
}: {
  entries: HistoryEntry[];
  codeId: string | null;
  currentVersion: number | null;
  testId: string;
}) {
  const router = useRouter();
  const notify = useToast();
  const id = useId();
  const past = entries.filter((e) => currentVersion !== null && e.version < currentVersion);
  const [version, setVersion] = useState(String(past[0]?.version ?? ""));
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);

  async function restore(event: React.FormEvent) {
    event.preventDefault();
    if (!reason.trim()) return setError("Reason to restore is required: say why this version comes back.");
    const result = await callApi(`/api/v1/review-codes/${codeId}/restore`, "POST", { version: Number(version), reason });
    if (!result.ok) return setError(result.message);
    setError(null);
    setReason("");
    notify({ title: `Version ${version} restored as a new version` });
    router.refresh();
  }

  return (
    <div className="space-y-3">
      <ol data-testid={testId} className="divide-y divide-border rounded-lg border border-border bg-card">
        {entries.map((h) => (
          <li key={h.id}>
            <details className="group px-3 py-2">
              <summary className="flex cursor-pointer flex-wrap items-center gap-2 text-sm">
                <span className="font-medium">
                  Version {h.version} ({h.kind})
                </span>
                {h.version === currentVersion ? <Badge tone="info">current</Badge> : null}
                <Time iso={h.createdAt} />
                {h.author ? <span data-testid="history-author">by {h.author}</span> : null}
                <span className="text-muted-foreground">: {h.reason}</span>
              </summary>
              <ul className="mt-2 space-y-1 pl-4 text-sm">
                {h.diff.length === 0 ? <li className="text-muted-foreground">no field changed</li> : null}
                {h.diff.map((d) => (
                  <li key={d.key} className="[overflow-wrap:anywhere]">
                    <span className="font-medium">{d.key}</span>: <del className="text-danger">{d.before}</del> →{" "}
                    <ins className="text-success no-underline">{d.after}</ins>
                  </li>
                ))}
              </ul>
            </details>
          </li>
        ))}
      </ol>
      {codeId && past.length > 0 ? (
        <form
          onSubmit={restore}
          className="flex flex-wrap items-end gap-3 rounded-lg border border-dashed border-border p-3"
          aria-label="Restore a past version"
        >
          <Field id={`${id}-version`} label="Restore version">
            <Select id={`${id}-version`} value={version} onChange={(e) => setVersion(e.target.value)} className="w-40">
              {past.map((e) => (
                <option key={e.version} value={e.version}>
                  Version {e.version}
                </option>
              ))}
            </Select>
          </Field>
          <Field id={`${id}-reason`} label="Reason to restore" className="min-w-64 flex-1">
            <Input id={`${id}-reason`} value={reason} onChange={(e) => setReason(e.target.value)} />
          </Field>
          <Button type="submit">
            <History aria-hidden="true" />
            Restore
          </Button>
          <div className="basis-full">
            <FormAlert text={error} />
          </div>
        </form>
      ) : null}
    </div>
  );
}

"use client";

import { Trash2 } from "lucide-react";
import { useRouter } from "next/navigation";
import { callApi } from "@/components/ui/call-api";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { useToast } from "@/components/ui/toast";
import type { DeletedEvaluation } from "@/lib/evaluations/manage/delete-evaluation";

const runsNoun = (n: number) => `${n.toLocaleString("en-US")} run${n === 1 ? "" : "s"}`;

/**
 * Deletes the evaluation after a confirmation that names it and its run count; the count goes with
 * the request, so runs ingested since the dialog opened stop it (409) instead of going unseen.
 */
export function DeleteEvaluationButton({ id, name, runs }: { id: string; name: string; runs: number }) {
  const router = useRouter();
  const notify = useToast();
  return (
    <ConfirmDialog
      trigger={
        <Button size="sm" variant="danger" data-testid="delete-evaluation">
          <Trash2 aria-hidden="true" />
          Delete
        </Button>
      }
      title={`Delete ${name}?`}
      description={
        <>
          This deletes the evaluation and its <strong data-testid="delete-run-count">{runsNoun(runs)}</strong>, with their open-effects
          records, resolutions, units, policies and live runs, for everyone; share links to it stop working. It cannot be undone. The
          admins&apos; audit log keeps who deleted it and when.
        </>
      }
      confirmLabel={`Delete ${runsNoun(runs)}`}
      onConfirm={async () => {
        const result = await callApi<DeletedEvaluation>(`/api/v1/evaluations/${id}?expectedRuns=${runs}`, "DELETE");
        if (!result.ok) {
          notify({ title: "Not deleted", description: result.message, tone: "danger" });
          if (result.status === 409) router.refresh();
          return;
        }
        notify({ title: `Deleted ${result.data.name}`, description: `${runsNoun(result.data.runs)} went with it.` });
        router.push("/evaluations");
        router.refresh();
      }}
    />
  );
}

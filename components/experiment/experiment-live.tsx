"use client";

import { QueryClient, QueryClientProvider, useQuery, useQueryClient } from "@tanstack/react-query";
import { CircleStop } from "lucide-react";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { callApi } from "@/components/ui/call-api";
import { Alert } from "@/components/ui/alert";
import { StateBadge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { useToast } from "@/components/ui/toast";
import type { ExperimentStatus } from "@/lib/experiments/progress";
import { publishProgress } from "./live-progress";

const FINAL = new Set(["completed", "failed", "cancelled", "interrupted"]);
const POLL_MS = 1_000;
const RESULTS_REFRESH_MS = 5_000;

/**
 * The experiment's progress and its cancel button, polled (TanStack Query) while it is queued or
 * running and no longer once final; when it becomes final the page's server-rendered results are
 * refreshed. The query client lives here: no other page loads TanStack Query. Condition labels come
 * from the server, so that no zod-bearing module reaches this bundle.
 */
export function ExperimentLive(props: { initial: ExperimentStatus; canCancel: boolean; conditionLabels: Record<string, string> }) {
  const [client] = useState(() => new QueryClient({ defaultOptions: { queries: { retry: 2, refetchOnWindowFocus: false } } }));
  return (
    <QueryClientProvider client={client}>
      <Progress {...props} />
    </QueryClientProvider>
  );
}

function Progress({
  initial,
  canCancel,
  conditionLabels,
}: {
  initial: ExperimentStatus;
  canCancel: boolean;
  conditionLabels: Record<string, string>;
}) {
  const router = useRouter();
  const notify = useToast();
  const queryClient = useQueryClient();
  const key = ["experiment-status", initial.id];
  const { data, error } = useQuery({
    queryKey: key,
    queryFn: async (): Promise<ExperimentStatus> => {
      const response = await fetch(`/api/v1/experiments/${initial.id}`, { cache: "no-store" });
      if (!response.ok) throw new Error(`status ${response.status}`);
      return (await response.json()) as ExperimentStatus;
    },
    initialData: initial,
    refetchInterval: (query) => (FINAL.has(query.state.data?.state ?? "") ? false : POLL_MS),
  });
  // The headline's "Runs stored" card shows this same answer (live-progress.tsx).
  useEffect(() => publishProgress(initial.id, data.progress), [initial.id, data.progress]);
  const wasFinal = useRef(FINAL.has(initial.state));
  useEffect(() => {
    if (!wasFinal.current && FINAL.has(data.state)) {
      wasFinal.current = true;
      router.refresh();
    }
  }, [data.state, router]);
  // While it runs, the server-rendered headline and tables follow the runs stored, at most every RESULTS_REFRESH_MS.
  const refreshedAt = useRef(0);
  useEffect(() => {
    if (FINAL.has(data.state) || data.progress.done === 0 || Date.now() - refreshedAt.current < RESULTS_REFRESH_MS) return;
    refreshedAt.current = Date.now();
    router.refresh();
  }, [data.progress.done, data.state, router]);

  async function cancel() {
    const result = await callApi<{ state: string }>(`/api/v1/experiments/${initial.id}/cancel`, "POST");
    if (result.ok) {
      notify({ title: "Experiment cancelled", description: `No operation of it can still commit; the ${stored.kept} stored so far stay.` });
      queryClient.setQueryData(key, { ...data, state: "cancelled" as const });
    } else notify({ title: "The experiment was not cancelled", description: result.message, tone: "danger" });
    await queryClient.invalidateQueries({ queryKey: key });
  }

  const { done, total } = data.progress;
  // A canary experiment's unit is a trial, whose result is a row per surface, not a run.
  const stored = data.kind === "canary" ? { units: "trials", kept: "trials' results" } : { units: "runs", kept: "runs" };
  const percent = total === 0 ? 0 : Math.floor((done / total) * 100);
  const running = !FINAL.has(data.state);
  return (
    <Panel
      id="progress"
      className="mt-6"
      title="Progress"
      actions={
        canCancel && running ? (
          <ConfirmDialog
            trigger={
              <Button variant="danger" size="sm">
                <CircleStop aria-hidden="true" />
                Cancel experiment
              </Button>
            }
            title="Cancel this experiment?"
            description={`${done}/${total} ${stored.units} are stored. Cancelling stops the workers, cancels every pending write on the service and keeps the ${stored.kept} stored so far; it cannot be resumed.`}
            confirmLabel="Cancel experiment"
            cancelLabel="Keep running"
            onConfirm={cancel}
          />
        ) : null
      }
    >
      <div className="space-y-3">
        <label htmlFor="experiment-progress" className="flex flex-wrap items-center gap-2 text-sm">
          <span className="tabular-nums">
            {done}/{total} {data.kind === "canary" ? "trials" : "runs"} stored ({percent}%)
          </span>
          <span className="text-muted-foreground">·</span> state <StateBadge state={data.state} data-testid="progress-state" />
          {running ? <span className="text-muted-foreground">(updating every second)</span> : null}
        </label>
        <progress
          id="experiment-progress"
          data-testid="experiment-progress"
          value={done}
          max={Math.max(total, 1)}
          className="h-2.5 w-full overflow-hidden rounded-full accent-[var(--primary)] [&::-webkit-progress-bar]:bg-muted [&::-webkit-progress-value]:bg-primary"
        />
        {error ? (
          <Alert tone="warning" role="alert">
            <p>Progress could not be refreshed ({error.message}); retrying.</p>
          </Alert>
        ) : null}
        <details>
          <summary className="cursor-pointer text-sm text-muted-foreground">Per condition</summary>
          <ul className="mt-2 grid gap-x-6 gap-y-1 text-sm sm:grid-cols-2 lg:grid-cols-3">
            {data.conditions.map((c) => (
              <li key={c.condition} className="flex justify-between gap-2">
                <span>{conditionLabels[c.condition] ?? c.condition}</span>
                <span className="tabular-nums text-muted-foreground">
                  {c.done}/{c.total}
                </span>
              </li>
            ))}
          </ul>
        </details>
      </div>
    </Panel>
  );
}

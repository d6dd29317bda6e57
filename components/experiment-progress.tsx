"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef } from "react";
import type { ExperimentStatus } from "@/lib/experiments/progress";
import { CONDITION_LABELS, POLICY_LABELS } from "@/lib/replay/display";

const FINAL = new Set(["completed", "failed", "cancelled"]);
const POLL_MS = 1_000;

const conditionLabel = (c: string) => (POLICY_LABELS as Record<string, string>)[c] ?? (CONDITION_LABELS as Record<string, string>)[c] ?? c;

/**
 * The experiment's progress, polled while it is queued or running and no longer once it is final;
 * when it becomes final the page's server-rendered results are refreshed.
 */
export function ExperimentProgress({ initial }: { initial: ExperimentStatus }) {
  const router = useRouter();
  const { data, error } = useQuery({
    queryKey: ["experiment-status", initial.id],
    queryFn: async (): Promise<ExperimentStatus> => {
      const response = await fetch(`/api/v1/experiments/${initial.id}`, { cache: "no-store" });
      if (!response.ok) throw new Error(`status ${response.status}`);
      return (await response.json()) as ExperimentStatus;
    },
    initialData: initial,
    refetchInterval: (query) => (FINAL.has(query.state.data?.state ?? "") ? false : POLL_MS),
  });
  const wasFinal = useRef(FINAL.has(initial.state));
  useEffect(() => {
    if (!wasFinal.current && FINAL.has(data.state)) {
      wasFinal.current = true;
      router.refresh();
    }
  }, [data.state, router]);

  const { done, total } = data.progress;
  const percent = total === 0 ? 0 : Math.floor((done / total) * 100);
  return (
    <section aria-labelledby="progress-title" className="panel">
      <h2 id="progress-title">Progress</h2>
      <p>
        <label htmlFor="experiment-progress">
          {done}/{total} runs stored ({percent}%), state <strong data-testid="progress-state">{data.state}</strong>
          {FINAL.has(data.state) ? "" : " (updating every second)"}
        </label>
        <progress id="experiment-progress" data-testid="experiment-progress" value={done} max={Math.max(total, 1)} className="progress" />
      </p>
      {error ? (
        <p className="error" role="alert">
          Progress could not be refreshed ({error.message}); retrying.
        </p>
      ) : null}
      <details>
        <summary>Per condition</summary>
        <ul className="condition-progress">
          {data.conditions.map((c) => (
            <li key={c.condition}>
              {conditionLabel(c.condition)}: {c.done}/{c.total}
            </li>
          ))}
        </ul>
      </details>
    </section>
  );
}

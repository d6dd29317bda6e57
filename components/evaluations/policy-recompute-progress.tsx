"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { Alert } from "@/components/ui/alert";
import type { PendingPolicy } from "@/lib/evaluations/read/read-boundary";

const POLL_MS = 1_500;

/**
 * A saved policy version's recompute, while it runs (its job, lib/evaluations/policy-recompute/): the
 * runs computed of the scored runs, polled from the summary, and the page's figures reloaded once the
 * version is applied. The figures on the page stay those of `appliedVersion` until then, all of them.
 */
export function PolicyRecomputeProgress({
  evaluationId,
  appliedVersion,
  initial,
}: {
  evaluationId: string;
  appliedVersion: number;
  initial: PendingPolicy;
}) {
  const router = useRouter();
  const [pending, setPending] = useState<PendingPolicy | null>(initial);
  useEffect(() => {
    let stopped = false;
    const timer = setInterval(async () => {
      const response = await fetch(`/api/v1/evaluations/${evaluationId}/summary`, { cache: "no-store" }).catch(() => null);
      if (stopped || !response?.ok) return;
      const summary = (await response.json()) as { effectPolicyVersion: number; pendingPolicy: PendingPolicy | null };
      setPending(summary.pendingPolicy);
      if (summary.effectPolicyVersion !== appliedVersion) {
        stopped = true;
        clearInterval(timer);
        router.refresh();
      }
    }, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [evaluationId, appliedVersion, router]);
  if (!pending) return null;
  const percent = pending.runsTotal === 0 ? 100 : Math.min(100, Math.floor((pending.runsDone / pending.runsTotal) * 100));
  return (
    <Alert tone="info" role="status" title={`Effect policy version ${pending.version} is being recomputed`} data-testid="policy-recompute">
      <p>
        <span className="tabular-nums" data-testid="policy-recompute-runs">
          {pending.runsDone.toLocaleString("en-US")}/{pending.runsTotal.toLocaleString("en-US")} scored runs computed
        </span>{" "}
        ({percent}%). Every figure on this page is under version {appliedVersion} until version {pending.version} is applied; then they all
        change at once.
      </p>
      <progress
        className="mt-2 w-full"
        max={Math.max(pending.runsTotal, 1)}
        value={Math.min(pending.runsDone, pending.runsTotal)}
        aria-label="Runs recomputed"
      />
    </Alert>
  );
}

import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ExperimentProgress } from "@/components/experiment-progress";
import { ExperimentReport } from "@/components/experiment-report";
import { ShareButton } from "@/components/share-button";
import { requirePagePermission } from "@/lib/auth/guard";
import { can } from "@/lib/auth/permissions";
import { finalityByDelay, unresolvedRuns } from "@/lib/dashboard/experiment-aggregates";
import { getDb } from "@/lib/db/client";
import { experimentStatus } from "@/lib/experiments/progress";
import { isExperimentId } from "@/lib/replay/display";
import { experimentSummary } from "@/lib/replay/summary";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Experiment" };

export default async function ExperimentPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const principal = await requirePagePermission("results:read", `/experiments/${id}`);
  if (!isExperimentId(id)) notFound();
  const db = getDb();
  const experiment = await db.experiment.findUnique({
    where: { id },
    select: { id: true, createdAt: true, finishedAt: true, state: true, error: true, wallMs: true, config: true },
  });
  if (!experiment) notFound();
  const [summary, status, byDelay, unresolved] = await Promise.all([experimentSummary(db, id), experimentStatus(db, id), finalityByDelay(db, id), unresolvedRuns(db, id)]);
  const { config, ...facts } = experiment;
  return (
    <ExperimentReport
      experiment={{ ...facts, createdAt: facts.createdAt.toISOString(), finishedAt: facts.finishedAt?.toISOString() ?? null }}
      summary={summary}
      byDelay={byDelay}
      unresolved={unresolved}
      config={config}
      progress={status ? <ExperimentProgress initial={status} /> : null}
      actions={
        <div className="actions">
          <a href={`/experiments/${id}/runs`}>Browse its runs</a>
          {can(principal.role, "share:create") ? <ShareButton resourceType="experiment" resourceId={id} /> : null}
        </div>
      }
      exports={
        <p>
          Download the Table 2 reproduction: <a href={`/api/v1/experiments/${id}/table2?format=csv`}>CSV</a> ·{" "}
          <a href={`/api/v1/experiments/${id}/table2?format=json`}>JSON</a>
        </p>
      }
    />
  );
}

import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ExperimentReport } from "@/components/experiment-report";
import { ShareButton } from "@/components/share-button";
import { requirePagePermission } from "@/lib/auth/guard";
import { can } from "@/lib/auth/permissions";
import { getDb } from "@/lib/db/client";
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
    select: { id: true, createdAt: true, finishedAt: true, state: true, error: true, wallMs: true },
  });
  if (!experiment) notFound();
  const summary = await experimentSummary(db, experiment.id);
  return (
    <ExperimentReport
      experiment={{ ...experiment, createdAt: experiment.createdAt.toISOString(), finishedAt: experiment.finishedAt?.toISOString() ?? null }}
      summary={summary}
      actions={can(principal.role, "share:create") ? <ShareButton resourceType="experiment" resourceId={experiment.id} /> : null}
    />
  );
}

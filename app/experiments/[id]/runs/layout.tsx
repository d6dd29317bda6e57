import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { requirePagePermission } from "@/lib/auth/guard";
import { experimentExists } from "@/lib/experiments/read/runs";
import { getDb } from "@/lib/db/web-process-db";
import { isExperimentId } from "@/lib/experiments/experiment-id";

/**
 * Checked here, outside loading.tsx's Suspense boundary: once the loading state is sent the status is
 * fixed at 200, so the sign-in redirect (307) and the 404 must come before it.
 */
export default async function RunsLayout({ children, params }: { children: ReactNode; params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requirePagePermission("results:read", `/experiments/${id}/runs`);
  if (!isExperimentId(id) || !(await experimentExists(getDb(), id))) notFound();
  return children;
}

import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { requirePagePermission } from "@/lib/auth/guard";
import { getSql } from "@/lib/db/web-process-db";
import { evaluationExists } from "@/lib/evaluations/read/get-evaluation";
import { evaluationIdSchema } from "@/lib/evaluations/evaluation-requests";

/**
 * Checked here, outside the pages' Suspense boundaries: once a loading state is sent the status is
 * fixed at 200, so the sign-in redirect and the 404 for an unknown or malformed id must come first.
 */
export default async function EvaluationLayout({ children, params }: { children: ReactNode; params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requirePagePermission("results:read", `/evaluations/${id}`);
  if (!evaluationIdSchema.safeParse({ id }).success) notFound();
  if (!(await evaluationExists(getSql(), id))) notFound();
  return children;
}

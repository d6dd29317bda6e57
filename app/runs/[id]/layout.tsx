import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { requirePagePermission } from "@/lib/auth/guard";
import { runIdSchema } from "@/lib/experiments/read/filters";
import { runExists } from "@/lib/experiments/read/runs";
import { getDb } from "@/lib/db/web-process-db";

/**
 * Checked here, outside loading.tsx's Suspense boundary: once the loading state is sent the status is
 * fixed at 200, so the sign-in redirect (307) and the 404 for an unknown or malformed id must come before it.
 */
export default async function RunLayout({ children, params }: { children: ReactNode; params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requirePagePermission("results:read", `/runs/${id}`);
  if (!runIdSchema.safeParse({ id }).success || !(await runExists(getDb(), id))) notFound();
  return children;
}

import type { ReactNode } from "react";
import { requirePagePermission } from "@/lib/auth/guard";

/** Checked here, outside loading.tsx's Suspense boundary, so that the sign-in redirect keeps its 307 status. */
export default async function EffectsLayout({ children }: { children: ReactNode }) {
  await requirePagePermission("results:read", "/effects");
  return children;
}

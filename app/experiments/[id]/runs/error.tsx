"use client";

import { PageError } from "@/components/ui/page-error";

/** Shown when the page could not be loaded (the server log has the cause; the page never shows it). */
export default function ErrorPage({ retry }: { error: unknown; retry: () => void }) {
  return <PageError message="The runs could not be loaded." retry={retry} />;
}

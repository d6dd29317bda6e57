"use client";

import { useEffect, useRef, useState, type ReactNode } from "react";
import { Button } from "./button";

/**
 * A section's editor behind a button: its module (a form with its schemas) is fetched when the reader
 * opens it, not with the page (the pages' budget: ≤ 300 KB of JavaScript by network idle, docs/dashboard.md). Opened, it stays
 * open across refreshes of the page, and the reader lands in it.
 */
export function OpenOnRequest({ label, testId, children }: { label: string; testId: string; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const region = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (open) region.current?.focus();
  }, [open]);
  if (!open)
    return (
      <Button onClick={() => setOpen(true)} aria-expanded={false} data-testid={testId}>
        {label}
      </Button>
    );
  return (
    <div ref={region} tabIndex={-1} className="outline-none">
      {children}
    </div>
  );
}

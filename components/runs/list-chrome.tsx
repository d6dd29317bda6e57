import { ChevronRight, Download, RotateCcw, SlidersHorizontal } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { Button, buttonClass } from "@/components/ui/button";

/** Download links for every row the current filters match (not only the page shown). */
export function ExportLinks({ what, hrefFor }: { what: string; hrefFor: (format: "csv" | "json") => string }) {
  return (
    <div className="flex flex-wrap items-center gap-2 text-sm">
      <span className="text-muted-foreground">Every matching {what}:</span>
      <a href={hrefFor("csv")} download className={buttonClass({ size: "sm" })}>
        <Download aria-hidden="true" />
        Download CSV
      </a>
      <a href={hrefFor("json")} download className={buttonClass({ size: "sm" })}>
        <Download aria-hidden="true" />
        Download JSON
      </a>
    </div>
  );
}

/** A filtered list's refusal: the filters' problem in the API's words, and a way back to everything. */
export function FilterError({ message, resetHref, resetLabel }: { message: string; resetHref: string; resetLabel: string }) {
  return (
    <Alert tone="danger" role="alert" title="These filters cannot be applied">
      <p>{message}.</p>
      <p>
        <Link href={resetHref}>{resetLabel}</Link>
      </p>
    </Alert>
  );
}

/** The line above a list: how many rows it shows of how many match (a status), and the downloads. */
export function ListSummary({ testId, children, exports }: { testId: string; children: ReactNode; exports: ReactNode }) {
  return (
    <div className="flex flex-wrap items-center justify-between gap-3">
      <p className="text-sm font-semibold" role="status" data-testid={testId}>
        {children}
      </p>
      {exports}
    </div>
  );
}

/** Keyset pages: back to the first page, and on to the next while there is one. */
export function Pager({ label, firstHref, nextHref }: { label: string; firstHref: string | null; nextHref: string | null }) {
  if (!firstHref && !nextHref) return null;
  return (
    <nav aria-label={label} className="flex flex-wrap gap-2">
      {firstHref ? (
        <Link href={firstHref} className={buttonClass({ size: "sm" })}>
          First page
        </Link>
      ) : null}
      {nextHref ? (
        <Link href={nextHref} rel="next" className={buttonClass({ size: "sm" })}>
          Next page
          <ChevronRight aria-hidden="true" />
        </Link>
      ) : null}
    </nav>
  );
}

/**
 * A list's filters as a plain GET form: submitting puts them in the URL, so a link reproduces the
 * view (no script needed); applying filters starts again from the first page.
 */
export function FilterForm({ action, label, children }: { action: string; label: string; children: ReactNode }) {
  return (
    <form method="get" action={action} aria-label={label} className="rounded-lg border border-border bg-card p-4 shadow-xs">
      <fieldset>
        <legend className="mb-3 flex items-center gap-2 text-sm font-semibold">
          <SlidersHorizontal aria-hidden="true" className="size-4" />
          {label}
        </legend>
        <div className="grid grid-cols-[repeat(auto-fill,minmax(11rem,1fr))] items-end gap-3">
          {children}
          <div className="flex flex-wrap items-center gap-2">
            <Button type="submit" variant="primary">
              Apply filters
            </Button>
            <Link href={action} className={buttonClass({ variant: "ghost" })}>
              <RotateCcw aria-hidden="true" />
              Clear filters
            </Link>
          </div>
        </div>
      </fieldset>
    </form>
  );
}

import { cn } from "./cn";

/** A grey placeholder block while content loads (hidden from screen readers: the status line speaks). */
export function Skeleton({ className }: { className?: string }) {
  return <div aria-hidden="true" className={cn("animate-pulse rounded-md bg-muted motion-reduce:animate-none", className)} />;
}

/** A page's loading state: a status line for screen readers and the page's shape for the eye. */
export function PageLoading({ label }: { label: string }) {
  return (
    <div className="space-y-4">
      <p role="status" aria-live="polite" className="text-sm text-muted-foreground">
        {label}
      </p>
      <Skeleton className="h-8 w-64" />
      <div className="grid gap-4 sm:grid-cols-3">
        <Skeleton className="h-24" />
        <Skeleton className="h-24" />
        <Skeleton className="h-24" />
      </div>
      <Skeleton className="h-72" />
    </div>
  );
}

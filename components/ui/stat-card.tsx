import type { ReactNode } from "react";
import { cn } from "./cn";

/**
 * A headline figure: its value, the counts behind it (n/N, never a bare rate), a one-line meaning,
 * and room for an interval once the statistics issue adds one.
 */
export function StatCard({
  label,
  value,
  ratio,
  interval,
  meaning,
  tone,
  testId,
}: {
  label: string;
  value: ReactNode;
  ratio?: { n: number; of: number; what?: string };
  interval?: ReactNode;
  meaning: ReactNode;
  tone?: "success" | "danger" | "warning" | "muted";
  testId?: string;
}) {
  return (
    <div className="flex flex-col gap-1 rounded-lg border border-border bg-card p-4 shadow-xs" data-testid={testId}>
      <p className="text-sm font-medium text-muted-foreground">{label}</p>
      <p
        className={cn(
          "text-2xl font-semibold tabular-nums",
          tone === "success" && "text-success",
          tone === "danger" && "text-danger",
          tone === "warning" && "text-warning",
          tone === "muted" && "text-muted-foreground",
        )}
      >
        {value}
      </p>
      {ratio ? (
        <p className="text-sm tabular-nums">
          {ratio.n}/{ratio.of}
          {ratio.what ? <span className="text-muted-foreground"> {ratio.what}</span> : null}
        </p>
      ) : null}
      {interval ? <p className="text-xs text-muted-foreground tabular-nums">{interval}</p> : null}
      <p className="text-xs text-muted-foreground">{meaning}</p>
    </div>
  );
}

/** The headline figures; `id` makes them a contents bar's target (scroll-mt: clear of the sticky bars). */
export function StatGrid({ children, className, id }: { children: ReactNode; className?: string; id?: string }) {
  return (
    <div id={id} className={cn("grid scroll-mt-28 gap-3 sm:grid-cols-2 xl:grid-cols-4", className)}>
      {children}
    </div>
  );
}

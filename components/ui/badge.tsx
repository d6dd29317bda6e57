import type { ReactNode } from "react";
import { cn } from "./cn";

export type Tone = "neutral" | "success" | "danger" | "warning" | "info";

const TONES: Record<Tone, string> = {
  neutral: "bg-muted text-foreground border-border",
  success: "bg-success-muted text-success border-success/30",
  danger: "bg-danger-muted text-danger border-danger/30",
  warning: "bg-warning-muted text-warning border-warning/30",
  info: "bg-info-muted text-info border-info/30",
};

/** A short word with a tint; the word always says it, the tint only repeats it. */
export function Badge({ tone = "neutral", children, className, ...props }: { tone?: Tone; children: ReactNode; className?: string } & React.HTMLAttributes<HTMLSpanElement>) {
  return (
    <span className={cn("inline-flex items-center gap-1 rounded-full border px-2 py-0.5 text-xs font-medium whitespace-nowrap", TONES[tone], className)} {...props}>
      {children}
    </span>
  );
}

const STATE_TONES: Record<string, Tone> = { queued: "neutral", running: "info", completed: "success", failed: "danger", cancelled: "warning" };

/** An experiment's state as a badge. */
export function StateBadge({ state, ...props }: { state: string } & React.HTMLAttributes<HTMLSpanElement>) {
  return (
    <Badge tone={STATE_TONES[state] ?? "neutral"} {...props}>
      {state}
    </Badge>
  );
}

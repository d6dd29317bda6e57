import type { ReactNode } from "react";
import { cn } from "./cn";

export type Tone = "neutral" | "success" | "danger" | "warning" | "info";

/** A short word with a tint (globals.css `.badge`); the word always says it, the tint only repeats it. */
export function Badge({
  tone = "neutral",
  children,
  className,
  ...props
}: { tone?: Tone; children: ReactNode; className?: string } & React.HTMLAttributes<HTMLSpanElement>) {
  return (
    <span className={cn("badge", `badge-${tone}`, className)} {...props}>
      {children}
    </span>
  );
}

const STATE_TONES: Record<string, Tone> = {
  queued: "neutral",
  running: "info",
  completed: "success",
  failed: "danger",
  cancelled: "warning",
  interrupted: "warning",
};

/** An experiment's state as a badge. */
export function StateBadge({ state, ...props }: { state: string } & React.HTMLAttributes<HTMLSpanElement>) {
  return (
    <Badge tone={STATE_TONES[state] ?? "neutral"} {...props}>
      {state}
    </Badge>
  );
}

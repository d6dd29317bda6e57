import { Inbox, type LucideIcon } from "lucide-react";
import type { ReactNode } from "react";
import { cn } from "./cn";

/** What an empty list or section says instead of nothing: what is missing, and how to get some. */
export function EmptyState({
  title,
  children,
  icon: Icon = Inbox,
  className,
  ...props
}: { title: ReactNode; children?: ReactNode; icon?: LucideIcon; className?: string } & Omit<
  React.HTMLAttributes<HTMLDivElement>,
  "title"
>) {
  return (
    <div
      className={cn("flex flex-col items-center gap-2 rounded-lg border border-dashed border-border px-6 py-8 text-center", className)}
      {...props}
    >
      <Icon aria-hidden="true" className="size-6 text-muted-foreground" />
      <p className="font-medium">{title}</p>
      {children ? <div className="max-w-prose space-y-1 text-sm text-muted-foreground">{children}</div> : null}
    </div>
  );
}

import { CircleAlert, CircleCheck, Info, TriangleAlert } from "lucide-react";
import type { ReactNode } from "react";
import { cn } from "./cn";

const TONES = {
  danger: { box: "border-danger/40 bg-danger-muted", icon: CircleAlert, iconClass: "text-danger" },
  warning: { box: "border-warning/40 bg-warning-muted", icon: TriangleAlert, iconClass: "text-warning" },
  info: { box: "border-info/40 bg-info-muted", icon: Info, iconClass: "text-info" },
  success: { box: "border-success/40 bg-success-muted", icon: CircleCheck, iconClass: "text-success" },
} as const;

/**
 * A boxed message. `role` is the caller's choice: "alert" for an error that just appeared, "status"
 * for news, "note" for a standing remark.
 */
export function Alert({
  tone = "info",
  title,
  children,
  className,
  ...props
}: { tone?: keyof typeof TONES; title?: ReactNode; children?: ReactNode; className?: string } & Omit<
  React.HTMLAttributes<HTMLDivElement>,
  "title"
>) {
  const { box, icon: Icon, iconClass } = TONES[tone];
  return (
    <div className={cn("flex gap-3 rounded-md border px-3 py-2.5 text-sm", box, className)} {...props}>
      <Icon aria-hidden="true" className={cn("mt-0.5 size-4 shrink-0", iconClass)} />
      <div className="min-w-0 space-y-1 [overflow-wrap:anywhere]">
        {title ? <p className="font-semibold">{title}</p> : null}
        {children}
      </div>
    </div>
  );
}

/** A form's error, announced to screen readers; nothing when there is none. */
export function FormAlert({ text }: { text: string | null | undefined }) {
  return text ? (
    <Alert tone="danger" role="alert">
      <p>{text}</p>
    </Alert>
  ) : null;
}

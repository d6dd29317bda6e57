import type { HTMLAttributes, ReactNode } from "react";
import { cn } from "./cn";

export function Card({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div className={cn("rounded-lg border border-border bg-card shadow-xs", className)} {...props} />;
}

/** A card with a titled header (an h2 unless told otherwise) and a body. */
export function Panel({
  title,
  description,
  actions,
  children,
  className,
  headingLevel = 2,
  id,
  ...props
}: { title: ReactNode; description?: ReactNode; actions?: ReactNode; children: ReactNode; headingLevel?: 2 | 3; id?: string } & Omit<
  HTMLAttributes<HTMLElement>,
  "title"
>) {
  const Heading = headingLevel === 2 ? "h2" : "h3";
  const headingId = id ? `${id}-title` : undefined;
  return (
    <section className={cn("rounded-lg border border-border bg-card shadow-xs", className)} aria-labelledby={headingId} id={id} {...props}>
      <div className="flex flex-wrap items-start justify-between gap-2 border-b border-border px-4 py-3">
        <div className="min-w-0">
          <Heading id={headingId} className="text-base font-semibold">
            {title}
          </Heading>
          {description ? <p className="mt-0.5 text-sm text-muted-foreground">{description}</p> : null}
        </div>
        {actions ? <div className="flex flex-wrap items-center gap-2">{actions}</div> : null}
      </div>
      <div className="p-4">{children}</div>
    </section>
  );
}

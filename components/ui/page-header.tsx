import Link from "next/link";
import { ChevronRight } from "lucide-react";
import type { ReactNode } from "react";

/** The page's h1, a line saying what the page shows, a trail back up, and the page's actions. */
export function PageHeader({
  title,
  description,
  crumbs,
  actions,
  meta,
}: {
  title: ReactNode;
  description?: ReactNode;
  crumbs?: { href: string; label: ReactNode }[];
  actions?: ReactNode;
  meta?: ReactNode;
}) {
  return (
    <header className="mb-6 space-y-2">
      {crumbs?.length ? (
        <nav aria-label="Breadcrumb">
          <ol className="flex flex-wrap items-center gap-1 text-sm text-muted-foreground">
            {crumbs.map((c, i) => (
              <li key={c.href} className="flex items-center gap-1">
                {i > 0 ? <ChevronRight aria-hidden="true" className="size-3.5" /> : null}
                <Link href={c.href} className="text-muted-foreground no-underline hover:text-foreground hover:underline">
                  {c.label}
                </Link>
              </li>
            ))}
          </ol>
        </nav>
      ) : null}
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0 space-y-1">
          <h1 className="text-2xl font-semibold tracking-tight [overflow-wrap:anywhere]">{title}</h1>
          {meta ? <div className="flex flex-wrap items-center gap-2 text-sm text-muted-foreground">{meta}</div> : null}
        </div>
        {actions ? <div className="flex flex-wrap items-center gap-2">{actions}</div> : null}
      </div>
      {description ? <p className="max-w-3xl text-sm text-muted-foreground">{description}</p> : null}
    </header>
  );
}

/**
 * A titled part of a page (an h2), with an optional one-line caption, a "How to read this" disclosure
 * for the longer explanation (closed, so that the figures come first), and actions.
 */
export function Section({
  title,
  description,
  howToRead,
  actions,
  children,
  id,
  ...props
}: {
  title: ReactNode;
  description?: ReactNode;
  howToRead?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  id?: string;
} & Omit<React.HTMLAttributes<HTMLElement>, "title">) {
  const headingId = id ? `${id}-title` : undefined;
  return (
    // scroll-mt: a contents link's jump leaves the heading below the sticky header and contents bar.
    <section className="mt-10 scroll-mt-28 space-y-3" aria-labelledby={headingId} id={id} {...props}>
      <div className="flex flex-wrap items-end justify-between gap-2">
        <div className="min-w-0 space-y-1">
          <h2 id={headingId} className="text-lg font-semibold tracking-tight">
            {title}
          </h2>
          {description ? <div className="max-w-3xl text-sm text-muted-foreground">{description}</div> : null}
          {howToRead ? <HowToRead topic={title}>{howToRead}</HowToRead> : null}
        </div>
        {actions ? <div className="flex flex-wrap items-center gap-2">{actions}</div> : null}
      </div>
      {children}
    </section>
  );
}

/** The full explanation of a part of a page, closed until asked for; `topic` names the part for screen readers. */
function HowToRead({ topic, children }: { topic: ReactNode; children: ReactNode }) {
  return (
    <details className="max-w-3xl text-sm text-muted-foreground" data-testid="how-to-read">
      <summary className="w-fit cursor-pointer text-link underline-offset-2 hover:underline">
        How to read this<span className="sr-only">: {topic}</span>
      </summary>
      <div className="mt-1 space-y-1">{children}</div>
    </details>
  );
}

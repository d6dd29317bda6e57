import type { ReactNode } from "react";
import { cn } from "./cn";

/** Label/value pairs in two columns (one on a phone). */
export function Facts({
  items,
  className,
}: {
  items: readonly (readonly [ReactNode, ReactNode, string?] | null | false)[];
  className?: string;
}) {
  return (
    <dl className={cn("grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-[minmax(9rem,max-content)_1fr]", className)}>
      {items
        .filter((item): item is readonly [ReactNode, ReactNode, string?] => Boolean(item))
        .map(([label, value, testId], i) => (
          <div key={i} className="contents">
            <dt className="font-medium text-muted-foreground">{label}</dt>
            <dd className="min-w-0 [overflow-wrap:anywhere]" data-testid={testId}>
              {value}
            </dd>
          </div>
        ))}
    </dl>
  );
}

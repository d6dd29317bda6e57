import type { ReactNode, TdHTMLAttributes, ThHTMLAttributes } from "react";
import { cn } from "./cn";

/**
 * The one table look: a bordered card that scrolls sideways on a phone; with `maxHeight` it scrolls
 * down too and its header row stays in view (sticky).
 */
export function TableFrame({ children, className, maxHeight }: { children: ReactNode; className?: string; maxHeight?: string }) {
  return (
    <div
      className={cn("overflow-auto rounded-lg border border-border bg-card shadow-xs", className)}
      style={maxHeight ? { maxHeight } : undefined}
      // A scrolling region must be reachable from the keyboard (axe: scrollable-region-focusable).
      tabIndex={0}
    >
      {children}
    </div>
  );
}

/** The table look (globals.css `.data-table`): padding, rules, sticky header row, `.num` for numbers. */
export const tableClass = "data-table";

export function Th({ className, scope = "col", ...props }: ThHTMLAttributes<HTMLTableCellElement>) {
  return <th scope={scope} className={className} {...props} />;
}

/** A row header cell (th scope=row) in the body. */
export function RowHead({ className, ...props }: ThHTMLAttributes<HTMLTableCellElement>) {
  return <th scope="row" className={className} {...props} />;
}

export function Td({ className, numeric, ...props }: TdHTMLAttributes<HTMLTableCellElement> & { numeric?: boolean }) {
  return <td className={cn(numeric && "num", className) || undefined} {...props} />;
}

/** A captioned table with a row of column headers; the body rows are the caller's. */
export function DataTable({
  caption,
  columns,
  children,
  testId,
  numericColumns = [],
  maxHeight,
}: {
  caption: ReactNode;
  columns: readonly ReactNode[];
  children: ReactNode;
  testId?: string;
  /** Indexes of columns whose header is right-aligned over numbers. */
  numericColumns?: readonly number[];
  maxHeight?: string;
}) {
  return (
    <TableFrame maxHeight={maxHeight}>
      <table className={tableClass} data-testid={testId}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c, i) => (
              <Th key={i} className={numericColumns.includes(i) ? "num" : undefined}>
                {c}
              </Th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </TableFrame>
  );
}

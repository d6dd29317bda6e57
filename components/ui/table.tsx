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
      {...(maxHeight ? { style: { maxHeight } } : {})}
      // A scrolling region must be reachable from the keyboard (axe: scrollable-region-focusable).
      tabIndex={0}
    >
      {children}
    </div>
  );
}

/** The table look (globals.css `.data-table`): padding, rules, sticky header row, `.num` for numbers. */
export const tableClass = "data-table";

// The cells pass on only the props given: a server page's tables travel to the browser as props, and
// an explicit `className={undefined}` costs ~25 bytes a cell there.
export function Th({ scope = "col", ...props }: ThHTMLAttributes<HTMLTableCellElement>) {
  return <th scope={scope} {...props} />;
}

/** A row header cell (th scope=row) in the body. */
export function RowHead(props: ThHTMLAttributes<HTMLTableCellElement>) {
  return <th scope="row" {...props} />;
}

export function Td({ className, numeric, ...props }: TdHTMLAttributes<HTMLTableCellElement> & { numeric?: boolean }) {
  const classes = cn(numeric && "num", className);
  return <td {...(classes ? { className: classes } : {})} {...props} />;
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
      <table className={tableClass} {...(testId ? { "data-testid": testId } : {})}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c, i) => (
              <Th key={i} {...(numericColumns.includes(i) ? { className: "num" } : {})}>
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

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

export const tableClass = "w-full border-collapse text-sm";
export const captionClass = "caption-top px-3 pt-3 pb-2 text-left text-sm font-semibold";
export const headCellClass = "sticky top-0 z-10 border-b border-border bg-muted px-3 py-2 text-left align-bottom text-xs font-semibold text-muted-foreground";
export const cellClass = "border-b border-border px-3 py-2 align-top";

export function Th({ className, scope = "col", ...props }: ThHTMLAttributes<HTMLTableCellElement>) {
  return <th scope={scope} className={cn(headCellClass, className)} {...props} />;
}

/** A row header cell (th scope=row) in the body. */
export function RowHead({ className, ...props }: ThHTMLAttributes<HTMLTableCellElement>) {
  return <th scope="row" className={cn(cellClass, "text-left font-medium", className)} {...props} />;
}

export function Td({ className, numeric, ...props }: TdHTMLAttributes<HTMLTableCellElement> & { numeric?: boolean }) {
  return <td className={cn(cellClass, numeric && "text-right tabular-nums whitespace-nowrap", className)} {...props} />;
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
        <caption className={captionClass}>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c, i) => (
              <Th key={i} className={numericColumns.includes(i) ? "text-right" : undefined}>
                {c}
              </Th>
            ))}
          </tr>
        </thead>
        <tbody className="[&>tr:last-child>*]:border-b-0 [&>tr:hover]:bg-muted/50">{children}</tbody>
      </table>
    </TableFrame>
  );
}

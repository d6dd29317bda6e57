"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import {
  columnVisibilityFeature,
  createSortedRowModel,
  rowSortingFeature,
  tableFeatures,
  useTable,
  type ColumnDef,
} from "@tanstack/react-table";
import { ArrowDown, ArrowUp, ArrowUpDown, Columns3 } from "lucide-react";
import { useMemo, useRef, useState, type ReactNode } from "react";
import { cn } from "./cn";
import { renderCell, type GridCell } from "./grid-cell";
import { tableClass } from "./table";

/** A column of a DataGrid: plain data, so that a server component can describe it. */
export interface GridColumn {
  header: string;
  /** Right-aligned numbers. */
  numeric?: boolean;
  /** Sortable by the row's `sort` value for this column (default true). */
  sortable?: boolean;
  /** The column's cells are row headers (th scope=row): the first column, usually. */
  rowHeader?: boolean;
  /** Hidden until the reader shows it with "Columns". */
  hidden?: boolean;
  className?: string;
}

/** A row: its cells (data, or elements for a small table), and the values its columns sort by. */
export interface GridRow {
  key: string;
  cells: (GridCell | ReactNode)[];
  sort: (string | number | null)[];
  className?: string;
}

const features = tableFeatures({ rowSortingFeature, columnVisibilityFeature, sortedRowModel: createSortedRowModel() });

/** Numbers as numbers, text case-insensitively, missing values last whichever the direction. */
function compare(a: string | number | null, b: string | number | null): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b), "en", { numeric: true, sensitivity: "base" });
}

/** Above this many rows, only the rows in view are in the DOM. */
const VIRTUAL_FROM = 150;
const ROW_HEIGHT = 37;

/**
 * The sortable table: click (or Enter on) a column header to sort by it, again to reverse; the sorted
 * column says so (aria-sort). Columns can be hidden and shown. Long tables scroll inside a frame
 * whose header stays in view, and render only the rows in view.
 */
export function DataGrid({
  caption,
  columns,
  rows,
  testId,
  sortNote,
  maxHeight = "70vh",
}: {
  caption: ReactNode;
  columns: GridColumn[];
  rows: GridRow[];
  testId?: string;
  /** Says what sorting orders (e.g. "the rows of this page"). */
  sortNote?: string;
  maxHeight?: string;
}) {
  const columnDefs = useMemo<ColumnDef<typeof features, GridRow>[]>(
    () =>
      columns.map((column, index) => ({
        id: String(index),
        header: column.header,
        // undefined, not null: sortUndefined keeps missing values last in both directions.
        accessorFn: (row: GridRow) => row.sort[index] ?? undefined,
        enableSorting: column.sortable !== false,
        // Ascending first, numbers included (the library would start numbers descending).
        sortDescFirst: false,
        sortUndefined: "last",
        sortFn: (a, b) => compare(a.original.sort[index] ?? null, b.original.sort[index] ?? null),
      })),
    [columns],
  );
  const initialVisibility = useMemo(() => Object.fromEntries(columns.map((c, i) => [String(i), !c.hidden])), [columns]);
  const table = useTable({ features, columns: columnDefs, data: rows, initialState: { columnVisibility: initialVisibility } });
  const sortedRows = table.getRowModel().rows;
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtual = sortedRows.length > VIRTUAL_FROM;
  const virtualizer = useVirtualizer({
    count: sortedRows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    enabled: virtual,
  });
  const items = virtual ? virtualizer.getVirtualItems() : [];
  const shown = virtual ? items.map((item) => sortedRows[item.index]!) : sortedRows;
  const padTop = virtual && items.length ? items[0]!.start : 0;
  const padBottom = virtual && items.length ? virtualizer.getTotalSize() - items.at(-1)!.end : 0;
  const visibleColumns = table.getAllLeafColumns().filter((c) => c.getIsVisible());
  // The column checkboxes exist only while the menu is open: closed, they would share labels with the page's filters.
  const [menuOpen, setMenuOpen] = useState(false);

  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center justify-between gap-2 text-xs text-muted-foreground">
        <p>{sortNote ?? "Select a column heading to sort by it."}</p>
        <details className="relative" onToggle={(e) => setMenuOpen(e.currentTarget.open)}>
          <summary className="flex cursor-pointer list-none items-center gap-1 rounded-md border border-border bg-card px-2 py-1 text-foreground">
            <Columns3 aria-hidden="true" className="size-3.5" /> Columns
          </summary>
          {menuOpen ? (
            <fieldset className="absolute right-0 z-20 mt-1 w-60 space-y-1 rounded-md border border-border bg-card p-3 text-sm text-foreground shadow-lg">
              <legend className="sr-only">Columns shown</legend>
              {table.getAllLeafColumns().map((column) => (
                <label key={column.id} className="flex items-center gap-2">
                  <input
                    type="checkbox"
                    checked={column.getIsVisible()}
                    onChange={column.getToggleVisibilityHandler()}
                    disabled={columns[Number(column.id)]!.rowHeader}
                  />
                  {columns[Number(column.id)]!.header}
                </label>
              ))}
            </fieldset>
          ) : null}
        </details>
      </div>
      <div ref={scrollRef} className="overflow-auto rounded-lg border border-border bg-card shadow-xs" style={{ maxHeight }} tabIndex={0}>
        <table className={tableClass} data-testid={testId}>
          <caption>{caption}</caption>
          <thead>
            <tr>
              {table.getHeaderGroups()[0]!.headers.map((header) => {
                const column = columns[Number(header.column.id)]!;
                const sorted = header.column.getIsSorted();
                const Icon = sorted === "asc" ? ArrowUp : sorted === "desc" ? ArrowDown : ArrowUpDown;
                return (
                  <th
                    key={header.id}
                    scope="col"
                    aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : undefined}
                    className={column.numeric ? "num" : undefined}
                  >
                    {header.column.getCanSort() ? (
                      <button
                        type="button"
                        onClick={header.column.getToggleSortingHandler()}
                        className={cn(
                          "inline-flex items-center gap-1 rounded text-left font-semibold hover:text-foreground",
                          sorted && "text-foreground",
                        )}
                      >
                        {column.header}
                        <Icon aria-hidden="true" className="size-3.5 shrink-0" />
                      </button>
                    ) : (
                      column.header
                    )}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {padTop > 0 ? (
              <tr aria-hidden="true">
                <td colSpan={visibleColumns.length} style={{ height: padTop, padding: 0, border: 0 }} />
              </tr>
            ) : null}
            {shown.map((row) => (
              <tr key={row.original.key} className={row.original.className}>
                {visibleColumns.map((column) => {
                  const index = Number(column.id);
                  const spec = columns[index]!;
                  const content = renderCell(row.original.cells[index]);
                  return spec.rowHeader ? (
                    <th key={column.id} scope="row" className={spec.className}>
                      {content}
                    </th>
                  ) : (
                    <td key={column.id} className={cn(spec.numeric && "num", spec.className) || undefined}>
                      {content}
                    </td>
                  );
                })}
              </tr>
            ))}
            {padBottom > 0 ? (
              <tr aria-hidden="true">
                <td colSpan={visibleColumns.length} style={{ height: padBottom, padding: 0, border: 0 }} />
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>
    </div>
  );
}

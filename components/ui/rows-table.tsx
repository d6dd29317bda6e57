"use client";

import { renderCell, type GridCell } from "./grid-cell";
import { DataTable, RowHead, Td } from "./table";

/**
 * DataTable with its body rows given as data (GridCell), rendered here. A server page's rows as
 * elements travel in React's payload as element trees, and past its 3,200-byte row limit each further
 * element as a chunk of its own that the HTML fills in with a script; rows as data travel as their few
 * words. The markup is DataTable's with RowHead and Td.
 */
export function RowsTable({
  caption,
  columns,
  rows,
  testId,
  numericColumns = [],
  rowHeaderColumn = 0,
  cellClassNames = {},
}: {
  caption: string;
  columns: readonly string[];
  rows: readonly (readonly GridCell[])[];
  testId?: string;
  /** Indexes of right-aligned number columns (header and cells). */
  numericColumns?: readonly number[];
  /** The column whose cells are row headers (th scope=row). */
  rowHeaderColumn?: number;
  /** Extra classes of a column's cells, by index. */
  cellClassNames?: Readonly<Record<number, string>>;
}) {
  return (
    <DataTable caption={caption} columns={columns} numericColumns={numericColumns} {...(testId ? { testId } : {})}>
      {rows.map((row, r) => (
        <tr key={r}>
          {row.map((cell, i) =>
            i === rowHeaderColumn ? (
              <RowHead key={i}>{renderCell(cell)}</RowHead>
            ) : (
              <Td
                key={i}
                {...(numericColumns.includes(i) ? { numeric: true } : {})}
                {...(cellClassNames[i] ? { className: cellClassNames[i] } : {})}
              >
                {renderCell(cell)}
              </Td>
            ),
          )}
        </tr>
      ))}
    </DataTable>
  );
}

import type { ReactNode } from "react";

/** A captioned table with a row of column headers, scrolling sideways on a phone; the body is the caller's. */
export function DataTable({ caption, columns, children, testId }: { caption: ReactNode; columns: readonly string[]; children: ReactNode; testId?: string }) {
  return (
    <div className="table-scroll">
      <table data-testid={testId}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" key={c}>
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

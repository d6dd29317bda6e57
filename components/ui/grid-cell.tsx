import Link from "next/link";
import { isValidElement, type ReactNode } from "react";
import { Badge, type Tone } from "./badge";
import { Time } from "./time";

/**
 * A table cell described as data. A server page hands its rows to the sortable table (a client
 * component); React elements among those props travel to the browser as element trees, and past
 * React's 3,200-byte row limit each one as a deferred chunk the HTML fills in with a script of its
 * own (341 of them on a page of 50 open effects). A cell as data travels as its few words.
 */
export type GridCell =
  | string
  | number
  | null
  | { code: string }
  | { breakable: string }
  | { muted: string }
  | { text: string; title: string }
  | { time: string }
  | { badge: Tone; text: string; italic?: boolean; symbol?: string }
  | { href: string; text?: string; code?: string; label?: string; testId?: string; nowrap?: boolean };

/** A cell as the table shows it: data cells rendered here, elements (small tables) as given. */
export function renderCell(cell: GridCell | ReactNode): ReactNode {
  if (!isDataCell(cell)) return cell as ReactNode;
  if ("href" in cell)
    return (
      <Link href={cell.href} aria-label={cell.label} data-testid={cell.testId} className={cell.nowrap ? "whitespace-nowrap" : undefined}>
        {cell.text}
        {cell.code === undefined ? null : <code>{cell.code}</code>}
      </Link>
    );
  if ("code" in cell) return <code>{cell.code}</code>;
  if ("breakable" in cell) return <BreakableName name={cell.breakable} />;
  if ("muted" in cell) return <span className="text-muted-foreground">{cell.muted}</span>;
  if ("time" in cell) return <Time iso={cell.time} />;
  if ("badge" in cell)
    return (
      <Badge tone={cell.badge} className={cell.italic ? "italic" : undefined}>
        {cell.symbol ? <span aria-hidden="true">{cell.symbol}</span> : null}
        {cell.text}
      </Badge>
    );
  return <span title={cell.title}>{cell.text}</span>;
}

/** A cell given as data (an object of GridCell's shapes), not as text, a number or an element. */
function isDataCell(cell: GridCell | ReactNode): cell is Exclude<GridCell, string | number | null> {
  if (cell === null || typeof cell !== "object" || isValidElement(cell) || Array.isArray(cell)) return false;
  return ["href", "code", "breakable", "muted", "time", "badge", "title"].some((key) => key in cell);
}

/** A snake_case name that may wrap after each underscore (the text itself is unchanged). */
function BreakableName({ name }: { name: string }) {
  const parts = name.split("_");
  return <code>{parts.flatMap((part, i) => (i < parts.length - 1 ? [`${part}_`, <wbr key={i} />] : [part]))}</code>;
}

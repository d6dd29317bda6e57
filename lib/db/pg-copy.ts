// COPY … FROM STDIN through pg without another dependency (bench:ingest's reference load, and
// ingestion's own inserts of new rows): pg's Query answers the server's
// CopyInResponse by failing; this one sends the prepared chunks and ends the copy instead.
import pg from "pg";
import { arrayLiteral, type ColumnType } from "./unnest-rows";

class CopyFromChunks extends pg.Query {
  constructor(
    text: string,
    private readonly chunks: readonly Buffer[],
    callback: (error: Error | undefined) => void,
  ) {
    super(text, callback);
  }

  handleCopyInResponse(connection: { sendCopyFromChunk(chunk: Buffer): void; endCopyFrom(): void }): void {
    for (const chunk of this.chunks) connection.sendCopyFromChunk(chunk);
    connection.endCopyFrom();
  }
}

/** Runs `COPY table (…) FROM STDIN` with `chunks` as its text-format data. */
export function copyFrom(client: pg.Client, statement: string, chunks: readonly Buffer[]): Promise<void> {
  return new Promise((resolve, reject) => {
    void client.query(new CopyFromChunks(statement, chunks, (error) => (error ? reject(error) : resolve())));
  });
}

const COPY_ESCAPES: Readonly<Record<string, string>> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };
const NEEDS_ESCAPE = /[\\\t\n\r]/;

/** One value in COPY's text format: NULL as \N; backslash, tab, newline and carriage return escaped (tested first: most values have none, and replace's callback per value was a cost of every batch). */
export const copyText = (value: string | null) =>
  value === null ? "\\N" : NEEDS_ESCAPE.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : value;

/** One value of a column of `type` in COPY's text format (undefined is NULL). */
function copyValue(value: unknown, type: ColumnType): string {
  if (value === null || value === undefined) return "\\N";
  if (type === "jsonb") return copyText(JSON.stringify(value));
  if (type === "text[]") return copyText(arrayLiteral(value as string[]));
  if (type === "boolean") return value ? "t" : "f";
  return copyText(String(value));
}

/** COPY's text format for rows of `columns` (name → type): the column list, and one row as a line (without its newline). */
export function copyFormat(columns: Readonly<Record<string, ColumnType>>): {
  names: string[];
  line(row: Readonly<Record<string, unknown>>): string;
} {
  const names = Object.keys(columns);
  const types = names.map((name) => columns[name]!);
  return {
    names,
    // Built by concatenation: the arrays of map/join per row cost more than the values.
    line(row) {
      let line = "";
      for (let k = 0; k < names.length; k++) line += (k === 0 ? "" : "\t") + copyValue(row[names[k]!], types[k]!);
      return line;
    },
  };
}

/** Lines already in COPY's text format (each ending in a newline) copied into `table`'s columns `names`; nothing when there are none. */
export async function copyLines(client: pg.Client | pg.PoolClient, table: string, names: readonly string[], text: string): Promise<void> {
  if (text === "") return;
  await copyFrom(client as pg.Client, `COPY ${table} (${names.join(", ")}) FROM STDIN`, [Buffer.from(text)]);
}

/** `rows` copied into `table`, one column per key of `columns` with its type: faster than any INSERT of them (and with the same triggers). */
export async function copyRows(
  client: pg.Client | pg.PoolClient,
  table: string,
  rows: readonly Record<string, unknown>[],
  columns: Readonly<Record<string, ColumnType>>,
): Promise<void> {
  const format = copyFormat(columns);
  let text = "";
  for (const row of rows) text += `${format.line(row)}\n`;
  await copyLines(client, table, format.names, text);
}

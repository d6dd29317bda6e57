// Exports of any size: rows arrive in keyset batches and leave as a pulled stream, so memory holds
// one batch at a time whatever the number of matching rows.
import { stringify, type Options } from "csv-stringify/sync";

export type ExportFormat = "csv" | "json";

/** RFC 4180 (CRLF, quotes doubled) plus what spreadsheets need: a BOM so that UTF-8 is recognised, formulas neutralised. */
const CSV_OPTIONS: Options = {
  record_delimiter: "windows",
  // Set explicitly: csv-stringify stops quoting embedded line breaks once record_delimiter is given.
  quote_record_delimiter: true,
  // A text cell starting with = + - @ gets a leading apostrophe, so that a spreadsheet never runs it (negative numbers are left alone).
  escape_formulas: true,
  cast: {
    boolean: (value) => (value ? "true" : "false"),
    date: (value) => value.toISOString(),
    object: (value) => JSON.stringify(value),
  },
};

/** CSV text, batch by batch: the header row first (alone when nothing matches). */
export async function* csvChunks<T extends object>(
  batches: AsyncIterable<T[]>,
  columns: readonly (keyof T & string)[],
): AsyncGenerator<string> {
  let first = true;
  for await (const rows of batches) {
    yield stringify(rows, { ...CSV_OPTIONS, columns: [...columns], header: first, bom: first });
    first = false;
  }
  if (first) yield stringify([], { ...CSV_OPTIONS, columns: [...columns], header: true, bom: true });
}

/** A JSON array, batch by batch, one row per line. */
export async function* jsonArrayChunks<T>(batches: AsyncIterable<T[]>): AsyncGenerator<string> {
  let first = true;
  yield "[";
  for await (const rows of batches) {
    if (rows.length === 0) continue;
    yield `${first ? "\n" : ",\n"}${rows.map((row) => JSON.stringify(row)).join(",\n")}`;
    first = false;
  }
  yield "\n]\n";
}

/** A byte stream that asks for the next chunk only when the client has taken the last (backpressure). */
export function textStream(chunks: AsyncIterable<string>): ReadableStream<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch (error) {
        // The status line is already sent: the client sees a cut-off download, the server log says why.
        console.error("export stream failed:", error);
        controller.error(error);
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/** The download response of an export: every row in `batches`, as CSV or JSON, with a filename. */
export function exportResponse<T extends object>(options: {
  format: ExportFormat;
  batches: AsyncIterable<T[]>;
  columns: readonly (keyof T & string)[];
  filename: string;
}): Response {
  const { format, batches, columns, filename } = options;
  const body = textStream(format === "csv" ? csvChunks(batches, columns) : jsonArrayChunks(batches));
  return new Response(body, {
    headers: {
      "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
      "content-disposition": `attachment; filename="${filename}.${format}"`,
      "cache-control": "no-store",
    },
  });
}

/** A small CSV download held in memory (Table 2, the review ledger), written like the streamed exports: BOM, CRLF, formulas neutralised. */
export function csvResponse<T extends object>(filename: string, rows: T[], columns: readonly (keyof T & string)[]): Response {
  return new Response(stringify(rows, { ...CSV_OPTIONS, columns: [...columns], header: true, bom: true }), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${filename}"`,
      "cache-control": "no-store",
    },
  });
}

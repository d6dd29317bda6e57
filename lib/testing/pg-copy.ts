// COPY … FROM STDIN through pg without another dependency: pg's Query answers the server's
// CopyInResponse by failing; this one sends the prepared chunks and ends the copy instead.
import pg from "pg";

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

/** One value in COPY's text format: NULL as \N; backslash, tab, newline and carriage return escaped. */
export const copyText = (value: string | null) => (value === null ? "\\N" : value.replace(/[\\\t\n\r]/g, (c) => ({ "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" })[c]!));

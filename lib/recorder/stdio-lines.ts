// The stdio recorder's framing: MCP over stdio is one JSON-RPC message per line. Lines are collected
// from the stream's chunks as they come (each byte copied once, whatever the line's size) and handed
// on whole, so that the proxy passes on the exact bytes it received. A line longer than
// MAX_MESSAGE_BYTES is not kept: its bytes are dropped as they come, and only its start and end (where
// a JSON-RPC id is) are handed on, for the proxy to refuse it with an error naming the limit.

/** Messages up to this size are parsed and observed; larger ones are passed on as they came, unread. */
export const READ_LIMIT_BYTES = 4 * 2 ** 20;
/** A message (line) larger than this is refused: not passed on, its request answered with an error. */
export const MAX_MESSAGE_BYTES = 256 * 2 ** 20;
const EDGE_BYTES = 1_024;

export type Line = { kind: "line"; line: Buffer } | { kind: "over_limit"; bytes: number; head: string; tail: string };

export class LineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private dropping: { bytes: number; head: Buffer; tail: Buffer } | null = null;

  constructor(
    private readonly onLine: (line: Line) => void,
    private readonly maxBytes = MAX_MESSAGE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start <= chunk.length) {
      const newline = chunk.indexOf(10, start);
      const piece = chunk.subarray(start, newline === -1 ? chunk.length : newline);
      if (this.dropping) this.drop(piece);
      else if (piece.length > 0) {
        this.parts.push(piece);
        this.size += piece.length;
        if (this.size > this.maxBytes) {
          const whole = Buffer.concat(this.parts, this.size);
          this.parts = [];
          this.size = 0;
          this.dropping = { bytes: 0, head: Buffer.from(whole.subarray(0, EDGE_BYTES)), tail: Buffer.alloc(0) };
          this.drop(whole);
        }
      }
      if (newline === -1) return;
      this.endLine();
      start = newline + 1;
    }
  }

  /** The stream ended: the bytes of a line it left unfinished (dropped: a message is a whole line). */
  end(): number {
    const left = this.dropping ? this.dropping.bytes : this.size;
    this.parts = [];
    this.size = 0;
    this.dropping = null;
    return left;
  }

  private drop(piece: Buffer) {
    const dropping = this.dropping!;
    dropping.bytes += piece.length;
    dropping.tail = Buffer.from(Buffer.concat([dropping.tail, piece.subarray(-EDGE_BYTES)]).subarray(-EDGE_BYTES));
  }

  private endLine() {
    if (this.dropping) {
      const { bytes, head, tail } = this.dropping;
      this.dropping = null;
      this.onLine({ kind: "over_limit", bytes, head: head.toString("utf8"), tail: tail.toString("utf8") });
      return;
    }
    if (this.size === 0) return;
    const line = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    this.onLine({ kind: "line", line });
  }
}

const JSON_STRING_OR_NUMBER = String.raw`("(?:[^"\\]|\\.)*"|-?\d+)`;
const SCALAR_MEMBERS = String.raw`(?:"[^"]*"\s*:\s*(?:"(?:[^"\\]|\\.)*"|-?[\d.eE+-]+|true|false|null)\s*,\s*)*`;
const ID_AT_END = new RegExp(String.raw`"id"\s*:\s*${JSON_STRING_OR_NUMBER}\s*\}\s*$`);
const ID_AT_START = new RegExp(String.raw`^\s*\{\s*${SCALAR_MEMBERS}"id"\s*:\s*${JSON_STRING_OR_NUMBER}`);
const METHOD_AT_START = new RegExp(String.raw`^\s*\{\s*${SCALAR_MEMBERS}"method"\s*:\s*"((?:[^"\\]|\\.)*)"`);
const TOOL_NAME = /"params"\s*:\s*\{\s*"name"\s*:\s*"((?:[^"\\]|\\.)*)"/;

/**
 * What can be told of a message from its start and end alone (one too large to read): its id (the
 * top-level one, which JSON-RPC libraries write first or last), its method if it is a request, the
 * tool a tools/call names first, and whether a tool result ends saying isError.
 */
export function sniffMessage(head: string, tail: string): { id?: string | number; method?: string; tool?: string; isError: boolean } {
  const id = ID_AT_END.exec(tail)?.[1] ?? ID_AT_START.exec(head)?.[1];
  const method = METHOD_AT_START.exec(head)?.[1];
  const tool = TOOL_NAME.exec(head)?.[1];
  return {
    ...(id !== undefined && { id: JSON.parse(id) as string | number }),
    ...(method !== undefined && { method: JSON.parse(`"${method}"`) as string }),
    ...(tool !== undefined && { tool: JSON.parse(`"${tool}"`) as string }),
    isError: /"isError"\s*:\s*true/.test(tail),
  };
}

/** The first `n` characters of a line, for a message naming it. */
export const startOf = (line: Buffer | string, n = 200): string => {
  const text = typeof line === "string" ? line : line.subarray(0, n * 4).toString("utf8");
  return [...text].slice(0, n).join("");
};

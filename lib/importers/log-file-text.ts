// A log file's bytes as text: UTF-8 checked (whole, or chunk by chunk as it streams, a character cut
// between chunks included) and refused at the first byte that is not, UTF-16 told by its byte-order
// mark, JSON told by its first byte, and a git-lfs pointer told from the log it stands for.
import { isUtf8 } from "node:buffer";
import { SkippedLog } from "./imported-log";

const hex = (bytes: Buffer) => [...bytes.subarray(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join(" ");

/** The offset of the first byte of `bytes` that is not UTF-8, or -1: the text before it decodes whole, so its encoded length is the offset. */
function firstNonUtf8(bytes: Buffer): number {
  const text = bytes.toString("utf8");
  for (let at = text.indexOf("\uFFFD"); at !== -1; at = text.indexOf("\uFFFD", at + 1)) {
    const offset = Buffer.byteLength(text.slice(0, at));
    if (!(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd)) return offset; // not a U+FFFD the file holds
  }
  return -1;
}

const notUtf8 = (what: string, offset: number, byte: number | undefined) =>
  new SkippedLog(
    `${what} is not UTF-8: byte ${offset}${byte === undefined ? " ends it inside a character" : ` (0x${byte.toString(16).padStart(2, "0")}) cannot be read as one`}; save it as UTF-8 (or UTF-16 with a byte-order mark) and import it again`,
  );

/** Refuses bytes that are not UTF-8, naming the first one's offset (`base`: where `bytes` starts in the file). */
export function requireUtf8(bytes: Buffer, what: string, base = 0): void {
  if (isUtf8(bytes)) return;
  const offset = firstNonUtf8(bytes);
  throw notUtf8(what, base + (offset === -1 ? bytes.length : offset), offset === -1 ? undefined : bytes[offset]);
}

/** How many bytes at the end of `bytes` begin a character that the next chunk completes (0 to 3). */
function unfinishedTail(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back for its lead
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}

/** A streamed file's chunks checked to be UTF-8, a character cut between two chunks included. */
export function utf8Checker(what: string) {
  let carry = Buffer.alloc(0);
  let base = 0;
  return {
    feed(chunk: Buffer): void {
      const bytes = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
      const whole = bytes.length - unfinishedTail(bytes);
      requireUtf8(bytes.subarray(0, whole), what, base);
      carry = Buffer.from(bytes.subarray(whole));
      base += whole;
    },
    end(): void {
      if (carry.length > 0) throw notUtf8(what, base, undefined);
    },
  };
}

export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    throw new SkippedLog(`${what} is not valid JSON (${(error as Error).message}): is the file truncated?`);
  }
}

/** A file is JSON when its first byte after whitespace (and a byte-order mark) opens an object. */
export function refuseIfNotJsonObject(head: Buffer): void {
  const text = head.subarray(head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0);
  // A plain loop: Buffer.find's callback per byte held the web server's thread 120 ms on a 12 MB upload of spaces.
  let at = 0;
  while (at < text.length && (text[at] === 0x20 || text[at] === 0x09 || text[at] === 0x0a || text[at] === 0x0d)) at++;
  if (at === text.length) throw new SkippedLog("the file holds only whitespace");
  const first = text[at];
  if (first === 0x5b) throw new SkippedLog("a JSON array, not a log: a log is one JSON object (or an Inspect .eval archive)");
  if (first !== 0x7b) throw new SkippedLog(`neither JSON nor a zip archive (it starts with bytes ${hex(head)}): not a log file`);
}

const LFS_POINTER = Buffer.from("version https://git-lfs.github.com/spec/v1");

/** A git-lfs pointer stands where the log should be when a repository was cloned without `git lfs pull`. */
export function refuseIfLfsPointer(head: Buffer): void {
  if (!head.subarray(0, LFS_POINTER.length).equals(LFS_POINTER)) return;
  const text = head.toString("utf8", 0, Math.min(head.length, 1024));
  const oid = /^oid (\S+)$/m.exec(text)?.[1];
  const size = /^size (\d+)$/m.exec(text)?.[1];
  throw new SkippedLog(
    `a git-lfs pointer${oid ? ` (${oid}${size ? `, ${size} bytes` : ""})` : ""}, not the log itself: fetch the file with \`git lfs pull\` and import it again`,
  );
}

/** UTF-16 told by its byte-order mark (without one, UTF-16 cannot be told from binary). */
export function utf16Of(head: Buffer): "utf-16le" | "utf-16be" | null {
  if (head[0] === 0xff && head[1] === 0xfe) return "utf-16le";
  if (head[0] === 0xfe && head[1] === 0xff) return "utf-16be";
  return null;
}

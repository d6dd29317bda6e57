// One file → its runs, the format told from the content, never the name: a zip archive is an
// Inspect `.eval` log (header.json and samples/*.json inside) or a zip of log files (an upload of
// several at once); a JSON document is an AgentDojo run log or an Inspect `.json` log by its own
// fields. Memory holds one bounded piece of a file at a time: a JSON file up to 16 MB is parsed
// whole; a larger one is read as it streams (json-stream.ts), field by field and sample by sample;
// an archive is read entry by entry, with bounds on the entry count and the uncompressed sizes
// checked from its directory before anything is inflated, so that a zip bomb is refused, not inflated.
// Entries are deflate (older Inspect) or Zstandard (method 93, what current Inspect writes).
// Text is UTF-8 (a byte-order mark allowed) or UTF-16 with its byte-order mark (what a PowerShell
// redirect writes), transcoded first; bytes that are not UTF-8 are refused at their offset, never replaced.
import { isUtf8 } from "node:buffer";
import { closeSync, createReadStream, createWriteStream, fstatSync, openSync, readSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Decompress } from "fzstd";
import yauzl from "yauzl";
import { importAgentDojoLog, looksLikeAgentDojo } from "./agentdojo";
import { SkippedLog, type ImportedLog } from "./imported-log";
import { inspectLogReader, looksLikeInspect, type InspectOptions } from "./inspect";
import { jsonObjectStream, type JsonStreamHandlers } from "./json-stream";

/** A JSON file up to this size is read and parsed whole; a larger one streams. */
export const MAX_WHOLE_JSON_BYTES = 16 * 1024 * 1024;
/** One field or one sample of a streamed JSON file, or one archive entry: held whole to parse it. */
export const MAX_JSON_VALUE_BYTES = 64 * 1024 * 1024;
export const MAX_ARCHIVE_ENTRIES = 20_000;
export const MAX_ARCHIVE_BYTES = 1024 * 1024 * 1024;

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const MB = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;
/** A size as a person reads it: exact bytes below a megabyte, megabytes (rounded) above. */
const sizeOf = (bytes: number) => (bytes < 1024 * 1024 ? `${bytes} bytes` : MB(bytes));
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
function requireUtf8(bytes: Buffer, what: string, base = 0): void {
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
function utf8Checker(what: string) {
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

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    throw new SkippedLog(`${what} is not valid JSON (${(error as Error).message}): is the file truncated?`);
  }
}

/** A file is JSON when its first byte after whitespace (and a byte-order mark) opens an object. */
function refuseIfNotJsonObject(head: Buffer): void {
  const text = head.subarray(head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0);
  // A plain loop: Buffer.find's callback per byte held the web server's thread 120 ms on a 12 MB upload of spaces.
  let at = 0;
  while (at < text.length && (text[at] === 0x20 || text[at] === 0x09 || text[at] === 0x0a || text[at] === 0x0d)) at++;
  if (at === text.length) throw new SkippedLog("the file holds only whitespace");
  const first = text[at];
  if (first === 0x5b) throw new SkippedLog("a JSON array, not a log: a log is one JSON object (or an Inspect .eval archive)");
  if (first !== 0x7b) throw new SkippedLog(`neither JSON nor a zip archive (it starts with bytes ${hex(head)}): not a log file`);
}

function importDocument(document: unknown, name: string, options: InspectOptions): ImportedLog {
  if (looksLikeAgentDojo(document)) return importAgentDojoLog(document, name);
  if (looksLikeInspect(document)) {
    const reader = inspectLogReader("inspect-json", document, options);
    const samples = (document as { samples?: unknown }).samples;
    for (const sample of Array.isArray(samples) ? samples : []) reader.add(sample);
    return reader.finish();
  }
  throw new SkippedLog("neither an AgentDojo run log (suite_name, user_task_id, messages) nor an Inspect log (version, status, eval)");
}

async function streamJson(file: string, handlers: JsonStreamHandlers): Promise<void> {
  const stream = jsonObjectStream(handlers);
  const utf8 = utf8Checker("the file");
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) {
    utf8.feed(chunk as Buffer);
    stream.feed(chunk as Buffer);
  }
  utf8.end();
  stream.end();
}

/** A JSON file too large to hold: its fields first (one pass, samples skipped), then, for an Inspect log, its samples one by one (a second pass). */
async function importLargeJson(file: string, name: string, options: InspectOptions): Promise<ImportedLog> {
  const document: Record<string, unknown> = {};
  await streamJson(file, { arrayField: "samples", maxValueBytes: MAX_JSON_VALUE_BYTES, onField: (key, value) => (document[key] = value) });
  if (!looksLikeInspect(document)) return importDocument(document, name, options);
  const reader = inspectLogReader("inspect-json", document, options);
  await streamJson(file, { arrayField: "samples", maxValueBytes: MAX_JSON_VALUE_BYTES, onElement: (sample) => reader.add(sample) });
  return reader.finish();
}

// --- zip archives -----------------------------------------------------------------------------

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, validateEntrySizes: true, autoClose: false }, (error, zip) =>
      error ? reject(new SkippedLog(`not a readable zip archive: ${error.message}`)) : resolve(zip),
    ),
  );
}

/** The archive's directory (nothing inflated), refused past the entry count. */
function entriesOf(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  if (zip.entryCount > MAX_ARCHIVE_ENTRIES)
    throw new SkippedLog(
      `the archive holds ${zip.entryCount} entries, more than the ${MAX_ARCHIVE_ENTRIES} an import reads: refused as a possible zip bomb`,
    );
  return new Promise((resolve, reject) => {
    const entries: yauzl.Entry[] = [];
    zip.on("entry", (entry: yauzl.Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.on("end", () => resolve(entries));
    zip.on("error", (error: Error) => reject(new SkippedLog(`the archive is damaged: ${error.message}`)));
    zip.readEntry();
  });
}

/** Refuses, before inflating anything, an archive whose wanted entries say they inflate past the caps (yauzl checks that each inflates to what it says). */
function refuseBomb(entries: readonly yauzl.Entry[], entryCap: number): void {
  let total = 0;
  for (const entry of entries) {
    total += entry.uncompressedSize;
    if (entry.uncompressedSize > entryCap) {
      throw new SkippedLog(
        `entry ${entry.fileName} inflates to ${sizeOf(entry.uncompressedSize)}, more than the ${MB(entryCap)} one entry may: refused as a possible zip bomb`,
      );
    }
    if (total > MAX_ARCHIVE_BYTES) {
      throw new SkippedLog(
        `the entries inflate to ${sizeOf(total)} up to ${entry.fileName} (${sizeOf(entry.uncompressedSize)}), more than the ${MB(MAX_ARCHIVE_BYTES)} an archive may: refused as a possible zip bomb`,
      );
    }
  }
}

/** A few entries' names, for a reason that says what an archive holds. */
function someNames(entries: readonly yauzl.Entry[]): string {
  const shown = entries.slice(0, 3).map((e) => e.fileName);
  return entries.length > shown.length ? `${shown.join(", ")}, … ${entries.length} in all` : shown.join(", ");
}

/** Why an archive without an Inspect header is not imported (it holds Inspect samples, or no log file), saying what it does hold. */
function headlessReason(entries: readonly yauzl.Entry[], samples: readonly yauzl.Entry[]): string {
  if (samples.length > 0) {
    return `a zip archive with Inspect sample entries (${someNames(samples)}) but no header.json or _journal/start.json: an Inspect .eval log missing its header`;
  }
  return `a zip archive of ${entries.length} entr${entries.length === 1 ? "y" : "ies"} (${someNames(entries)}), none of them a log file (.json, .eval) and no header.json or _journal/start.json: neither an Inspect .eval log nor a zip of logs`;
}

/** The zip compression method of Zstandard (APPNOTE 4.4.5), which yauzl does not inflate itself. */
const ZSTANDARD = 93;

/**
 * A Zstandard entry's bytes inflated (fzstd), held to the size the directory declares as yauzl
 * holds a deflate entry: output past it stops the read at once, and output short of it is damage.
 */
async function* inflateZstandard(raw: AsyncIterable<Buffer>, entry: yauzl.Entry): AsyncGenerator<Buffer> {
  const out: Buffer[] = [];
  let inflated = 0;
  const decoder = new Decompress((data) => {
    inflated += data.length;
    if (inflated > entry.uncompressedSize)
      throw new SkippedLog(
        `the archive is damaged (${entry.fileName}): it inflates past the ${entry.uncompressedSize} bytes its directory declares`,
      );
    out.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  });
  try {
    for await (const chunk of raw) {
      decoder.push(chunk);
      yield* out.splice(0);
    }
    decoder.push(new Uint8Array(0), true);
  } catch (error) {
    throw error instanceof SkippedLog
      ? error
      : new SkippedLog(`the archive is damaged (${entry.fileName}): Zstandard: ${(error as Error).message}`);
  }
  yield* out.splice(0);
  if (inflated !== entry.uncompressedSize)
    throw new SkippedLog(
      `the archive is damaged (${entry.fileName}): it inflates to ${inflated} bytes, not the ${entry.uncompressedSize} its directory declares`,
    );
}

function entryStream(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<NodeJS.ReadableStream> {
  const zstandard = entry.compressionMethod === ZSTANDARD && !entry.isEncrypted();
  return new Promise((resolve, reject) =>
    zip.openReadStream(entry, zstandard ? { decodeFileData: false } : {}, (error, stream) =>
      error
        ? reject(new SkippedLog(`the archive is damaged (${entry.fileName}): ${error.message}`))
        : resolve(zstandard ? Readable.from(inflateZstandard(stream, entry)) : stream),
    ),
  );
}

async function readEntryJson(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<unknown> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of await entryStream(zip, entry)) chunks.push(chunk as Buffer);
  } catch (error) {
    throw error instanceof SkippedLog ? error : new SkippedLog(`the archive is damaged (${entry.fileName}): ${(error as Error).message}`);
  }
  const bytes = Buffer.concat(chunks);
  requireUtf8(bytes, entry.fileName);
  return parseJson(bytes.toString("utf8"), entry.fileName);
}

/** A sample's entry: `samples/{id}_epoch_{n}.json`, in folders below samples/ when its id holds a `/`. */
const SAMPLE_ENTRY = /^samples\/.+\.json$/;
/** The samples the log lists as completed: summaries.json once it ends, its journal's pieces while it runs. */
const SUMMARIES_ENTRY = "summaries.json";
const JOURNAL_SUMMARIES_ENTRY = /^_journal\/summaries\/[^/]+\.json$/;
/** Inside a zip of logs: the log files (folders and other files are passed over, as a directory's are). */
const BUNDLED_LOG = /\.(json|eval)$/i;

/** A zip of log files, unpacked into `dir`: each entry's temporary path and its name in the report. */
export interface LogBundle {
  dir: string;
  files: { path: string; name: string }[];
}

async function unpackBundle(zip: yauzl.ZipFile, name: string, entries: yauzl.Entry[]): Promise<LogBundle> {
  refuseBomb(entries, MAX_ARCHIVE_BYTES);
  const dir = await mkdtemp(path.join(tmpdir(), "bl-bundle-"));
  const files: LogBundle["files"] = [];
  try {
    for (const [index, entry] of entries.entries()) {
      // Entry names are not trusted as paths: each is written under a name of our own.
      const target = path.join(dir, `${index}-${path.basename(entry.fileName)}`);
      try {
        await pipeline(await entryStream(zip, entry), createWriteStream(target));
      } catch (error) {
        throw error instanceof SkippedLog
          ? error
          : new SkippedLog(`the archive is damaged (${entry.fileName}): ${(error as Error).message}`);
      }
      files.push({ path: target, name: `${name}/${entry.fileName}` });
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, files };
}

/** An Inspect `.eval` archive (its header first, then its samples one at a time), or a zip of logs. */
async function readArchive(file: string, name: string, options: InspectOptions): Promise<ImportedLog | LogBundle> {
  const zip = await openZip(file);
  try {
    const entries = await entriesOf(zip);
    const named = (name: string) => entries.find((e) => e.fileName === name);
    // header.json is written when the evaluation ends; a running one has only its journal's start.
    const headerEntry = named("header.json") ?? named("_journal/start.json");
    const samples = entries.filter((e) => SAMPLE_ENTRY.test(e.fileName));
    if (!headerEntry) {
      const logs = entries.filter((e) => BUNDLED_LOG.test(e.fileName) && !e.fileName.endsWith("/"));
      if (samples.length > 0 || logs.length === 0) throw new SkippedLog(headlessReason(entries, samples));
      return await unpackBundle(zip, name, logs);
    }
    const summaryEntries = named(SUMMARIES_ENTRY)
      ? [named(SUMMARIES_ENTRY)!]
      : entries.filter((e) => JOURNAL_SUMMARIES_ENTRY.test(e.fileName));
    refuseBomb([headerEntry, ...summaryEntries, ...samples], MAX_JSON_VALUE_BYTES);
    const start = await readEntryJson(zip, headerEntry);
    const header =
      headerEntry.fileName === "header.json" ? start : start && typeof start === "object" ? { status: "started", ...start } : start;
    const reader = inspectLogReader("inspect-eval", header, options);
    for (const sample of samples) reader.add(await readEntryJson(zip, sample));
    const summaries: unknown[] = [];
    for (const entry of summaryEntries) {
      const listed = await readEntryJson(zip, entry);
      if (Array.isArray(listed)) summaries.push(...listed);
    }
    return reader.finish(summaries);
  } finally {
    zip.close();
  }
}

// --- any file ---------------------------------------------------------------------------------

/** Reads a small file whole, synchronously (fewer round trips than the async calls: most logs are a few KB); a large one only its head. */
function headOrWhole(file: string): { size: number; bytes: Buffer } {
  const fd = openSync(file, "r");
  try {
    const { size } = fstatSync(fd);
    const bytes = Buffer.alloc(size <= MAX_WHOLE_JSON_BYTES ? size : 64);
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return { size, bytes: bytes.subarray(0, read) };
  } finally {
    closeSync(fd);
  }
}

/**
 * One file's runs, or the log files of a zip of logs (unpacked into a temporary folder the caller
 * removes). `name` is the file as the report names it (an AgentDojo log's pipeline is read from it).
 * Throws SkippedLog, with a reason a person can act on, when the file is not an importable log.
 */
export async function readLogFile(file: string, options: InspectOptions = {}, name = file): Promise<ImportedLog | LogBundle> {
  const { size, bytes } = headOrWhole(file);
  if (size === 0) throw new SkippedLog("the file is empty");
  if (bytes.subarray(0, 4).equals(ZIP_MAGIC)) return readArchive(file, name, options);
  const utf16 = utf16Of(bytes);
  if (utf16) return readUtf16(file, utf16, options, name);
  refuseIfLfsPointer(bytes);
  refuseIfNotJsonObject(bytes);
  if (size > MAX_WHOLE_JSON_BYTES) return importLargeJson(file, name, options);
  requireUtf8(bytes, "the file");
  return importDocument(parseJson(bytes.toString("utf8"), "the file"), name, options);
}

// --- text encodings ---------------------------------------------------------------------------

const LFS_POINTER = Buffer.from("version https://git-lfs.github.com/spec/v1");

/** A git-lfs pointer stands where the log should be when a repository was cloned without `git lfs pull`. */
function refuseIfLfsPointer(head: Buffer): void {
  if (!head.subarray(0, LFS_POINTER.length).equals(LFS_POINTER)) return;
  const text = head.toString("utf8", 0, Math.min(head.length, 1024));
  const oid = /^oid (\S+)$/m.exec(text)?.[1];
  const size = /^size (\d+)$/m.exec(text)?.[1];
  throw new SkippedLog(
    `a git-lfs pointer${oid ? ` (${oid}${size ? `, ${size} bytes` : ""})` : ""}, not the log itself: fetch the file with \`git lfs pull\` and import it again`,
  );
}

/** UTF-16 told by its byte-order mark (without one, UTF-16 cannot be told from binary). */
function utf16Of(head: Buffer): "utf-16le" | "utf-16be" | null {
  if (head[0] === 0xff && head[1] === 0xfe) return "utf-16le";
  if (head[0] === 0xfe && head[1] === 0xff) return "utf-16be";
  return null;
}

/** A UTF-16 file transcoded to UTF-8 in a temporary file (as it streams: a large log is never held whole), then read as any other. */
async function readUtf16(file: string, encoding: "utf-16le" | "utf-16be", options: InspectOptions, name: string): Promise<ImportedLog> {
  const dir = await mkdtemp(path.join(tmpdir(), "bl-utf16-"));
  try {
    const target = path.join(dir, "log.json");
    const decoder = new TextDecoder(encoding, { fatal: true, ignoreBOM: false });
    let offset = 0;
    const transcode = async function* (chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        try {
          yield Buffer.from(decoder.decode(chunk, { stream: true }));
        } catch {
          throw new SkippedLog(
            `the file is not ${encoding.toUpperCase()}: a character in bytes ${offset}–${offset + chunk.length} cannot be read as one`,
          );
        }
        offset += chunk.length;
      }
      try {
        yield Buffer.from(decoder.decode());
      } catch {
        throw new SkippedLog(
          `the file is not ${encoding.toUpperCase()}: it ends inside a character (an odd number of bytes, or half a surrogate pair)`,
        );
      }
    };
    await pipeline(createReadStream(file, { highWaterMark: 1024 * 1024 }), transcode, createWriteStream(target));
    const read = await readLogFile(target, options, name);
    if ("dir" in read) throw new SkippedLog("a UTF-16 file holding a zip archive: not a log file");
    return read;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

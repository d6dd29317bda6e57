// Zip archives: an Inspect `.eval` log (its header, then its samples one at a time) or a zip of log
// files (unpacked for the import to read one by one). Bounds on the entry count and the uncompressed
// sizes are checked from the archive's directory before anything is inflated, so that a zip bomb is
// refused, not inflated. Entries are deflate (older Inspect) or Zstandard (method 93, what current Inspect writes).
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Decompress } from "fzstd";
import yauzl from "yauzl";
import { SkippedLog, type ImportedLog } from "./imported-log";
import { inspectLogReader, type InspectOptions } from "./inspect";
import { parseJson, requireUtf8 } from "./log-file-text";
import { MAX_ARCHIVE_BYTES, MAX_ARCHIVE_ENTRIES, MAX_JSON_VALUE_BYTES } from "./log-file-limits";

const MB = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;
/** A size as a person reads it: exact bytes below a megabyte, megabytes (rounded) above. */
const sizeOf = (bytes: number) => (bytes < 1024 * 1024 ? `${bytes} bytes` : MB(bytes));

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
export async function readArchive(file: string, name: string, options: InspectOptions): Promise<ImportedLog | LogBundle> {
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

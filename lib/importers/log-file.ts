// One file → its runs, the format told from the content, never the name: a zip archive is an
// Inspect `.eval` log or a zip of log files (log-archive.ts); a JSON document is an AgentDojo run
// log or an Inspect `.json` log by its own fields. Memory holds one bounded piece of a file at a
// time (log-file-limits.ts): a JSON file up to 16 MB is parsed whole; a larger one is read as it
// streams (json-stream.ts), field by field and sample by sample. Text is UTF-8 (a byte-order mark
// allowed) or UTF-16 with its byte-order mark (what a PowerShell redirect writes), transcoded first;
// bytes that are not UTF-8 are refused at their offset, never replaced (log-file-text.ts).
import { closeSync, createReadStream, createWriteStream, fstatSync, openSync, readSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { importAgentDojoLog, looksLikeAgentDojo } from "./agentdojo";
import { SkippedLog, type ImportedLog } from "./imported-log";
import { inspectLogReader, type InspectOptions } from "./inspect";
import { looksLikeInspect } from "./inspect-log-schemas";
import { jsonObjectStream, type JsonStreamHandlers } from "./json-stream";
import { readArchive, type LogBundle } from "./log-archive";
import { MAX_JSON_VALUE_BYTES, MAX_WHOLE_JSON_BYTES } from "./log-file-limits";
import { parseJson, refuseIfLfsPointer, refuseIfNotJsonObject, requireUtf8, utf16Of, utf8Checker } from "./log-file-text";

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

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

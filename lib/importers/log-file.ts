// One file → its runs, the format told from the content, never the name: a zip archive is an
// Inspect `.eval` log (header.json and samples/*.json inside); a JSON document is an AgentDojo run
// log or an Inspect `.json` log by its own fields. Archives are read entry by entry with bounds on
// the entry count and the uncompressed sizes, so that a zip bomb is refused, not inflated.
import { open, readFile, stat } from "node:fs/promises";
import yauzl from "yauzl";
import { importAgentDojoLog, looksLikeAgentDojo } from "./agentdojo";
import { SkippedLog, type ImportedLog } from "./imported-log";
import { importInspectLog, looksLikeInspect, type InspectOptions } from "./inspect";

/** A JSON log is parsed whole: larger ones are refused rather than run the process out of memory. */
export const MAX_JSON_BYTES = 256 * 1024 * 1024;
export const MAX_ARCHIVE_ENTRIES = 20_000;
export const MAX_ENTRY_BYTES = 256 * 1024 * 1024;
export const MAX_ARCHIVE_BYTES = 1024 * 1024 * 1024;

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const MB = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

async function firstBytes(path: string, length: number): Promise<Buffer> {
  const file = await open(path, "r");
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await file.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    throw new SkippedLog(`${what} is not valid JSON (${(error as Error).message}): is the file truncated?`);
  }
}

/** The JSON documents of an archive's entries that `wanted` names, read one at a time within the bounds above. */
async function readArchive(path: string, wanted: (name: string) => boolean): Promise<Map<string, unknown>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, validateEntrySizes: true, autoClose: true }, (error, file) => (error ? reject(new SkippedLog(`not a readable zip archive: ${error.message}`)) : resolve(file))),
  );
  if (zip.entryCount > MAX_ARCHIVE_ENTRIES) {
    zip.close();
    throw new SkippedLog(`the archive holds ${zip.entryCount} entries, more than the ${MAX_ARCHIVE_ENTRIES} an Inspect log can have`);
  }
  const documents = new Map<string, unknown>();
  let total = 0;
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => {
      zip.close();
      reject(error instanceof SkippedLog ? error : new SkippedLog(`the archive is damaged: ${error.message}`));
    };
    zip.on("error", fail);
    zip.on("end", () => resolve(documents));
    zip.on("entry", (entry: yauzl.Entry) => {
      if (!wanted(entry.fileName)) return zip.readEntry();
      total += entry.uncompressedSize;
      if (entry.uncompressedSize > MAX_ENTRY_BYTES || total > MAX_ARCHIVE_BYTES) {
        return fail(new SkippedLog(`the archive inflates to more than ${MB(entry.uncompressedSize > MAX_ENTRY_BYTES ? MAX_ENTRY_BYTES : MAX_ARCHIVE_BYTES)} (${entry.fileName}): refused as a possible zip bomb`));
      }
      zip.openReadStream(entry, (error, stream) => {
        if (error) return fail(error);
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("error", fail);
        stream.on("end", () => {
          try {
            documents.set(entry.fileName, parseJson(Buffer.concat(chunks).toString("utf8"), entry.fileName));
            zip.readEntry();
          } catch (parseError) {
            fail(parseError as Error);
          }
        });
      });
    });
    zip.readEntry();
  });
}

const SAMPLE_ENTRY = /^samples\/[^/]+\.json$/;

async function importEvalArchive(path: string, options: InspectOptions): Promise<ImportedLog> {
  const documents = await readArchive(path, (name) => name === "header.json" || name === "_journal/start.json" || SAMPLE_ENTRY.test(name));
  // header.json is written when the evaluation ends; a running one has only its journal's start.
  const start = documents.get("_journal/start.json");
  const header = documents.get("header.json") ?? (start && typeof start === "object" ? { status: "started", ...start } : undefined);
  if (header === undefined) throw new SkippedLog("a zip archive without header.json or _journal/start.json: not an Inspect .eval log");
  const samples = [...documents].filter(([name]) => SAMPLE_ENTRY.test(name)).map(([, sample]) => sample);
  return importInspectLog("inspect-eval", header, samples, options);
}

/** One log file's runs. Throws SkippedLog, with a reason a person can act on, when the file is not an importable log. */
export async function importLogFile(path: string, options: InspectOptions = {}): Promise<ImportedLog> {
  const head = await firstBytes(path, ZIP_MAGIC.length);
  if (head.length === 0) throw new SkippedLog("the file is empty");
  if (head.equals(ZIP_MAGIC)) return importEvalArchive(path, options);
  const { size } = await stat(path);
  if (size > MAX_JSON_BYTES) throw new SkippedLog(`a ${MB(size)} JSON file: larger than the ${MB(MAX_JSON_BYTES)} a log can be imported at`);
  const document = parseJson(await readFile(path, "utf8"), "the file");
  if (looksLikeAgentDojo(document)) return importAgentDojoLog(document, path);
  if (looksLikeInspect(document)) {
    const samples = (document as { samples?: unknown }).samples;
    return importInspectLog("inspect-json", document, Array.isArray(samples) ? samples : [], options);
  }
  throw new SkippedLog("neither an AgentDojo run log (suite_name, user_task_id, messages) nor an Inspect log (version, status, eval)");
}

// One uploaded log (the import route's request body) → the same import as `npm run import`: the
// body is streamed to a temporary file, never held whole in memory, and refused past the cap.
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { Db } from "../db/prisma";
import { DomainError, invalid } from "../errors";
import { importLogs, type ImportOptions } from "./import-logs";
import { MAX_ARCHIVE_BYTES } from "./log-file-limits";
import type { ImportReport } from "./report";

/** An upload may be as large as an archive this importer reads. */
export const MAX_UPLOAD_BYTES = MAX_ARCHIVE_BYTES;

/** One uploaded file: its body, the length its sender declared (content-length; null when chunked), the name the report gives it. */
export interface Upload {
  body: ReadableStream<Uint8Array> | null;
  declaredBytes: number | null;
  fileName: string;
}

const tooLarge = () => new DomainError("too_large", "body_too_large", `a log can be at most ${MAX_UPLOAD_BYTES} bytes`);

/**
 * Imports one uploaded file (a log, or a zip of logs); the report names the file, or the zip's
 * files, by its name. Throws 413 past MAX_UPLOAD_BYTES (before reading anything when the declared
 * length says so, else as soon as the count passes it), 400 for an empty body.
 */
export async function importUpload(
  db: Db,
  { body, declaredBytes, fileName }: Upload,
  options: Omit<ImportOptions, "onFile">,
): Promise<ImportReport> {
  if (declaredBytes !== null && declaredBytes > MAX_UPLOAD_BYTES) throw tooLarge();
  if (!body) throw invalid("the body must be the log file");
  const dir = await mkdtemp(path.join(tmpdir(), "bl-upload-"));
  const file = path.join(dir, "upload");
  try {
    let received = 0;
    const capped = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        done(received > MAX_UPLOAD_BYTES ? tooLarge() : null, chunk);
      },
    });
    await pipeline(Readable.fromWeb(body as WebReadableStream<Uint8Array>), capped, createWriteStream(file));
    return await importLogs(db, [{ path: file, name: fileName }], options);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// A zip archive written by hand (deflated) for the importer's tests: archives the
// importer must refuse (too many entries, sizes that lie) cannot come from a well-behaved zip tool.
// An entry may also be copied as it is compressed in a real archive (a Zstandard one, which Node cannot write).
import { crc32, deflateRawSync, inflateRawSync } from "node:zlib";
import { decompress } from "fzstd";
import yauzl from "yauzl";

/** An entry as a real archive holds it: its compression method, its compressed bytes, the CRC and size of what they inflate to. */
export interface StoredEntry {
  method: number;
  compressed: Buffer;
  crc: number;
  size: number;
}

export type ZipEntry = {
  name: string;
  /** The size the directory claims it inflates to (default: its real size). */
  claimedSize?: number;
} & ({ data: Buffer | string } | { stored: StoredEntry });

/** Every entry of a real archive as it is stored (nothing inflated), by name. */
export async function storedEntries(file: string): Promise<Map<string, StoredEntry>> {
  const zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false });
  const entries = new Map<string, StoredEntry>();
  try {
    for await (const entry of zip.eachEntry()) {
      const chunks: Buffer[] = [];
      for await (const chunk of await zip.openReadStreamPromise(entry, { decodeFileData: false })) chunks.push(chunk as Buffer);
      entries.set(entry.fileName, {
        method: entry.compressionMethod,
        compressed: Buffer.concat(chunks),
        crc: entry.crc32,
        size: entry.uncompressedSize,
      });
    }
  } finally {
    zip.close();
  }
  return entries;
}

/** An entry's bytes as they were before the archive compressed them (stored, deflate or Zstandard). */
export function inflatedEntry(entry: StoredEntry): Buffer {
  if (entry.method === 0) return entry.compressed;
  if (entry.method === 8) return inflateRawSync(entry.compressed);
  if (entry.method === 93) return Buffer.from(decompress(entry.compressed));
  throw new Error(`compression method ${entry.method} is not one Inspect writes`);
}

/**
 * A real `.eval` archive as the `.json` log Inspect would have written for it: its header's fields
 * (header.json, or a killed run's _journal/start.json) and its samples, in the order of their entries.
 */
export async function inspectJsonOf(file: string): Promise<Record<string, unknown> & { samples: Record<string, unknown>[] }> {
  const entries = await storedEntries(file);
  const json = (name: string) => JSON.parse(inflatedEntry(entries.get(name)!).toString("utf8")) as Record<string, unknown>;
  const header = entries.has("header.json") ? json("header.json") : { ...json("_journal/start.json"), status: "started" };
  const samples = [...entries.keys()].filter((name) => name.startsWith("samples/")).map(json);
  return { ...header, samples };
}

function storedOf(entry: ZipEntry): StoredEntry {
  if ("stored" in entry) return entry.stored;
  const raw = Buffer.from(entry.data);
  return { method: 8, compressed: deflateRawSync(raw), crc: crc32(raw), size: raw.length };
}

/** The archive's bytes: local headers and data, the central directory, the end record. */
export function zipArchive(entries: readonly ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const { method, compressed: data, crc, size } = storedOf(entry);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(entry.claimedSize ?? size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(entry.claimedSize ?? size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

// Copies of current Inspect's Zstandard `.eval` (lib/testing/fixtures/inspect/, MIT) for bench:import's
// corpus: each a log of its own, its header's task id rewritten (and so deflated: Node writes no
// Zstandard), its sample and summaries entries the Zstandard bytes Inspect wrote.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { decompress } from "fzstd";
import { INSPECT_LOGS } from "../testing/importer-fixtures";
import { storedEntries, zipArchive, type ZipEntry } from "../testing/zip";

export const ZSTANDARD_EVAL = `${INSPECT_LOGS}tests__helpers_fixtures_legacy_retry-2-then-success.eval`;

/** Writes `count` such archives under `dir`/inspect-zstd/; answers how many. */
export async function writeZstandardEvalCopies(dir: string, count: number): Promise<number> {
  const entries = await storedEntries(ZSTANDARD_EVAL);
  const header = JSON.parse(Buffer.from(decompress(entries.get("header.json")!.compressed)).toString("utf8")) as {
    eval: Record<string, unknown>;
  };
  const folder = path.join(dir, "inspect-zstd");
  mkdirSync(folder, { recursive: true });
  for (let k = 0; k < count; k++) {
    const copy: ZipEntry[] = [...entries]
      .filter(([name]) => name !== "header.json" && name !== "_journal/start.json")
      .map(([name, stored]) => ({ name, stored }));
    copy.push({ name: "header.json", data: JSON.stringify({ ...header, eval: { ...header.eval, task_id: `bench-zstd-${k}` } }) });
    writeFileSync(path.join(folder, `bench-zstd-${k}.eval`), zipArchive(copy));
  }
  return count;
}

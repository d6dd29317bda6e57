// `npm run bench:import -- --json FILE [--files N]`: the importer on a corpus of AgentDojo-shaped logs.
//
//  1. A fresh embedded PostgreSQL in a temp folder (never the user's data), migrated.
//  2. N run logs (default 20,000) written to the temp folder by lib/testing/agentdojo-corpus.ts: the
//     five real fixtures mutated into every variant of their README, 29 pipelines, one file each,
//     a tenth of them error files that are skipped; and N/100 more, Inspect `.eval` archives with
//     Zstandard entries (lib/bench/zstandard-corpus.ts: current Inspect's, each its own log). Not timed.
//  3. `importLogs` on the folder, as `npm run import` runs it (the same process, one database
//     client): seconds = wall time of the whole import, from walking the folder to the report.
//  4. The same import again (every file unchanged), timed apart.
//
// Writes FILE as {files, zstandardArchives, seconds, filesPerSecond, runsPerSecond, peakRssMb,
// messages, transcriptBytesPerRun} (the first import; peakRssMb is this process's maximum resident set,
// PostgreSQL apart; transcriptBytesPerRun is the messages table with its TOAST and index over the runs
// stored) and prints them with the targets (≥ 1,000 files/s, < 1 GB), never asserted.
import { parseBenchFlags } from "../lib/bench/bench-flags";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startEmbeddedPostgres } from "../lib/db/embedded";
import { ensureMigrated } from "../lib/db/migrate";
import { createPrisma } from "../lib/db/prisma";
import { importLogs } from "../lib/importers/import-logs";
import { CORPUS_VARIANTS, writeAgentDojoCorpus } from "../lib/testing/agentdojo-corpus";
import { writeZstandardEvalCopies } from "../lib/bench/zstandard-corpus";
import { orderedShutdown } from "../lib/testing/ordered-shutdown";

const log = (line: string) => console.error(`bench:import: ${line}`);

const values = parseBenchFlags("bench:import", { files: { default: 20_000, min: 1, max: 1_000_000 } });
const FILES = values.files;

const dataDir = mkdtempSync(path.join(tmpdir(), "bl-bench-import-"));
const stack = orderedShutdown({ dataDir, stopTimeoutMs: 15_000, log, signalExitCode: 130, logReasonOnSuccess: false });
const peakRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);

async function main(): Promise<void> {
  const database = await startEmbeddedPostgres(dataDir, log);
  stack.onStop("PostgreSQL", () => database.stop());
  await ensureMigrated(database.url, log);
  const db = createPrisma(database.url, 2);
  stack.onStop("database client", () => db.$disconnect());

  const corpus = mkdtempSync(path.join(tmpdir(), "bl-bench-import-corpus-"));
  stack.onStop("corpus", async () => rmSync(corpus, { recursive: true, force: true }));
  const made = writeAgentDojoCorpus(corpus, FILES);
  log(`wrote ${made.files.toLocaleString("en-US")} logs (${CORPUS_VARIANTS.map((v, k) => `${v}: ${made.perVariant[k]}`).join("; ")})`);
  const zstandard = await writeZstandardEvalCopies(corpus, Math.floor(FILES / 100));
  log(`and ${zstandard.toLocaleString("en-US")} Inspect .eval archives with Zstandard entries`);

  let done = 0;
  const onFile = () => {
    done += 1;
    if (done % 5_000 === 0) log(`${done.toLocaleString("en-US")} files`);
  };
  const started = performance.now();
  const report = await importLogs(db, [corpus], { onFile });
  const seconds = (performance.now() - started) / 1000;
  const rssAfterFirst = peakRssMb();
  log(
    `first import: ${report.imported} imported, ${report.unchanged} unchanged, ${report.skipped.length} skipped, ${report.failed.length} failed, ${report.runs} runs, ${report.evaluations.length} evaluations`,
  );
  for (const failed of report.failed.slice(0, 3)) log(`FAILED ${failed.file}: ${failed.error}`);

  done = 0;
  const againStarted = performance.now();
  const again = await importLogs(db, [corpus], { onFile });
  const againSeconds = (performance.now() - againStarted) / 1000;
  log(
    `second import: ${again.imported} imported, ${again.unchanged} unchanged in ${againSeconds.toFixed(1)} s (${Math.round(again.files / againSeconds)} files/s)`,
  );

  const [stored] = await db.$queryRaw<{ runs: number; messages: number; bytes: number }[]>`
    SELECT (SELECT count(*)::int FROM evaluation_runs) AS runs, (SELECT coalesce(sum(count), 0)::int FROM evaluation_run_messages) AS messages,
           pg_total_relation_size('evaluation_run_messages')::float8 AS bytes`;
  const round = (x: number) => Math.round(x * 10) / 10;
  const figures = {
    files: report.files,
    zstandardArchives: zstandard,
    seconds: round(seconds),
    filesPerSecond: Math.round(report.files / seconds),
    runsPerSecond: Math.round(report.runs / seconds),
    peakRssMb: rssAfterFirst,
    messages: stored!.messages,
    transcriptBytesPerRun: Math.round(stored!.bytes / Math.max(1, stored!.runs)),
  };
  const verdict = (ok: boolean) => (ok ? "met" : "NOT met");
  console.log(
    [
      `${figures.files.toLocaleString("en-US")} files (${report.runs} runs, ${report.skipped.length} skipped, ${report.failed.length} failed) in ${figures.seconds} s`,
      `${figures.filesPerSecond} files/s, ${figures.runsPerSecond} runs/s (target ≥ 1,000 files/s): ${verdict(figures.filesPerSecond >= 1_000)}`,
      `peak RSS ${figures.peakRssMb} MB (target < 1024 MB): ${verdict(figures.peakRssMb < 1024)}; after the second import ${peakRssMb()} MB`,
      `transcripts: ${figures.messages.toLocaleString("en-US")} messages, ${figures.transcriptBytesPerRun.toLocaleString("en-US")} bytes per run stored (table, TOAST and index)`,
    ].join("\n"),
  );
  if (values.json) {
    writeFileSync(values.json, `${JSON.stringify(figures, null, 2)}\n`);
    log(`wrote ${values.json}`);
  }
  await stack.shutdown(report.failed.length > 0 ? 1 : 0, "done");
}

main().catch((error: unknown) => {
  log((error as Error).stack ?? String(error));
  void stack.shutdown(1, "failed");
});

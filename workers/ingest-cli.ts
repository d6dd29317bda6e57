// `npm run ingest -- --evaluation ID FILE.jsonl [--batch 1000] [--concurrency 2]`: one run per line
// (the run body of docs/evaluations.md), streamed, sent in batches through the API with the typed
// client, a progress line on stderr and a per-line report on stdout (`LINE<TAB>EXTERNAL_ID<TAB>STATUS[<TAB>FIELD: MESSAGE]`).
// Auth: BOUNDARY_LAB_API_KEY (an editor's or admin's API key); the app at BOUNDARY_LAB_URL
// (default http://localhost:3000). Exit codes: 0 every line stored or unchanged, 1 any line refused
// (or the API unreachable), 2 invalid flags.
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { z } from "zod";
import { evaluationClient } from "../lib/evaluations/client/api-client";
import { MAX_INGEST_BODY_BYTES, MAX_RUNS_PER_BATCH } from "../lib/evaluations/vocabulary";
import type { IngestResult } from "../lib/evaluations/run-record-schema";

const flagsSchema = z.strictObject({
  evaluation: z.uuid("--evaluation must be an evaluation id (a UUID)"),
  batch: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_RUNS_PER_BATCH, `--batch must be at most ${MAX_RUNS_PER_BATCH}`)
    .default(MAX_RUNS_PER_BATCH),
  concurrency: z.coerce.number().int().min(1).max(16).default(2),
});
const envSchema = z.object({
  BOUNDARY_LAB_API_KEY: z.string("set BOUNDARY_LAB_API_KEY to an API key (npm run apikey:create, or Account → API keys)").min(1),
  BOUNDARY_LAB_URL: z.url().default("http://localhost:3000"),
});
/** Leaves room under the server's body limit for the envelope. */
const BATCH_BYTES = MAX_INGEST_BODY_BYTES - 64 * 1024;

interface Line {
  number: number;
  run: unknown;
  /** A line refused before sending (not JSON): reported in its place. */
  refused?: IngestResult;
}

async function main(): Promise<number> {
  let flags: z.infer<typeof flagsSchema>;
  let file: string;
  let env: z.infer<typeof envSchema>;
  try {
    const { values, positionals } = parseArgs({
      args: process.argv.slice(2),
      strict: true,
      allowPositionals: true,
      options: { evaluation: { type: "string" }, batch: { type: "string" }, concurrency: { type: "string" } },
    });
    if (positionals.length !== 1) throw new Error("give exactly one FILE.jsonl");
    file = positionals[0]!;
    flags = flagsSchema.parse(values);
    env = envSchema.parse(process.env);
  } catch (error) {
    const message = error instanceof z.ZodError ? error.issues.map((i) => i.message).join("; ") : (error as Error).message;
    console.error(`ingest: ${message}\nusage: npm run ingest -- --evaluation ID FILE.jsonl [--batch 1000] [--concurrency 2]`);
    return 2;
  }
  const client = evaluationClient({ baseUrl: env.BOUNDARY_LAB_URL, apiKey: env.BOUNDARY_LAB_API_KEY });
  const counts = { created: 0, unchanged: 0, updated: 0, error: 0 };
  const started = performance.now();
  let lines = 0;
  const report = (number: number, result: IngestResult, sentIndex: number) => {
    counts[result.status]++;
    const error = result.error ? `\t${result.error.message.replace(`runs.${sentIndex}.`, "")}` : "";
    process.stdout.write(`${number}\t${result.externalId ?? "-"}\t${result.status}${error}\n`);
  };
  const progress = () => {
    const seconds = (performance.now() - started) / 1000;
    process.stderr.write(
      `\ringest: ${lines} lines, ${counts.created} created, ${counts.unchanged} unchanged, ${counts.updated} updated, ${counts.error} refused, ${Math.round((lines - counts.error) / Math.max(seconds, 0.001))} runs/s`,
    );
  };

  // Batches in flight, oldest first: reported in file order.
  const inFlight: { batch: Line[]; answer: Promise<IngestResult[]> }[] = [];
  const settleOldest = async () => {
    const { batch, answer } = inFlight.shift()!;
    const results = await answer;
    let sent = 0;
    for (const line of batch) {
      if (line.refused) report(line.number, line.refused, -1);
      else report(line.number, results[sent]!, sent++);
    }
    progress();
  };
  let batch: Line[] = [];
  let batchBytes = 0;
  const send = async () => {
    if (batch.length === 0) return;
    const runs = batch;
    const toSend = runs.filter((line) => !line.refused).map((line) => line.run);
    const answer = toSend.length === 0 ? Promise.resolve([]) : client.ingestRuns(flags.evaluation, toSend).then((body) => body.results);
    answer.catch(() => {}); // awaited in order by settleOldest; a failure ends the run there
    inFlight.push({ batch: runs, answer });
    batch = [];
    batchBytes = 0;
    if (inFlight.length >= flags.concurrency) await settleOldest();
  };

  const input = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
  let number = 0;
  for await (const text of input) {
    number++;
    if (text.trim() === "") continue;
    lines++;
    let run: unknown;
    let refused: IngestResult | undefined;
    try {
      run = JSON.parse(text);
    } catch (error) {
      refused = { externalId: null, status: "error", error: { code: "malformed_json", message: `not JSON: ${(error as Error).message}` } };
    }
    const bytes = Buffer.byteLength(text) + 1;
    if (batch.length > 0 && batchBytes + bytes > BATCH_BYTES) await send();
    batch.push({ number, run, refused });
    batchBytes += bytes;
    if (batch.length >= flags.batch) await send();
  }
  await send();
  while (inFlight.length > 0) await settleOldest();
  progress();
  process.stderr.write("\n");
  return counts.error > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`\ningest: ${(error as Error).message}`);
    process.exit(1);
  },
);

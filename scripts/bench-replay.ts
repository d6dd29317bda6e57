// `npm run bench:replay -- --json FILE`: timing fidelity at the default concurrency, and the full
// grid's wall time at the default concurrency against concurrency 1. Prints the figures; asserts nothing.
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { replayConfigSchema } from "../lib/replay/rules/config";
import { table2Mismatches } from "../lib/replay/rules/expected-table2";
import { replayExperiment } from "../lib/replay/run/run-experiment";
import { withReplayStack } from "../lib/replay/run/stack";

const { values } = parseArgs({ options: { json: { type: "string" } }, strict: true });
const log = (line: string) => console.error(`bench:replay: ${line}`);

await withReplayStack(log, async ({ db, serviceUrl }) => {
  const concurrent = replayConfigSchema.parse({});
  log(`full grid at the default concurrency (${concurrent.concurrency})`);
  const fast = await replayExperiment(db, concurrent, serviceUrl);
  log(`full grid at concurrency 1 (takes minutes: every delay is waited out in turn)`);
  const slow = await replayExperiment(db, { ...concurrent, concurrency: 1 }, serviceUrl);

  const result = {
    fidelity: fast.delays.map((d) => ({
      nominalMs: d.nominalMs,
      medianOverheadMs: d.medianMs - d.nominalMs,
      p99OverheadMs: d.p99Ms - d.nominalMs,
      n: d.n,
    })),
    concurrentWallMs: fast.wallMs,
    sequentialWallMs: slow.wallMs,
    ratio: fast.wallMs / slow.wallMs,
    table2Exact: table2Mismatches(fast, concurrent).length === 0 && table2Mismatches(slow, concurrent).length === 0,
  };
  console.log("nominal  median overhead  p99 overhead  n");
  for (const f of result.fidelity)
    console.log(
      `${String(f.nominalMs).padStart(4)} ms  ${f.medianOverheadMs.toFixed(3).padStart(12)} ms  ${f.p99OverheadMs.toFixed(3).padStart(9)} ms  ${f.n}`,
    );
  console.log(
    `concurrent wall ${(result.concurrentWallMs / 1000).toFixed(2)} s, sequential wall ${(result.sequentialWallMs / 1000).toFixed(1)} s, ratio 1/${(1 / result.ratio).toFixed(1)}`,
  );
  console.log(`Table 2 exact in both: ${result.table2Exact}`);
  for (const problem of [...table2Mismatches(fast, concurrent), ...table2Mismatches(slow, concurrent)])
    console.log(`  mismatch: ${problem}`);
  if (values.json) writeFileSync(values.json, `${JSON.stringify(result, null, 2)}\n`);
});

// `npm run replay -- --json FILE [--traces SELECTION] [--delays 0,25,100,250] [--schedules 5] [--repetitions 10] [--concurrency N]`
// Runs the paper's replay grid for real (or, with --traces, the grid for each selected library
// trace: `ground-truth:SUITE`, tasks `banking/user_task_3,…`, or trace ids), stores it, prints
// Table 2 (and the per-trace and per-suite results), writes FILE.
// Exit codes: 0 all checks passed, 1 a check failed or the replay broke, 2 invalid flags or selection.
import { writeFileSync } from "node:fs";
import { DomainError } from "../lib/errors";
import { parseReplayArgs, UsageError } from "../lib/experiments/replay-cli-args";
import { replayConfigSchema } from "../lib/replay/rules/config";
import { formatTable2, formatTraceResults } from "../lib/format/numbers";
import { replayExperiment } from "../lib/replay/run/run-experiment";
import { withReplayStack } from "../lib/replay/run/stack";
import { experimentTraceResults } from "../lib/replay/store/trace-results";
import { routedWrites } from "../lib/replay/rules/trace";
import { loadGroundTruthTraces, resolveTraceSelection } from "../lib/traces/library";

async function main(): Promise<number> {
  let args;
  try {
    args = parseReplayArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`replay: ${error.message}`);
      return 2;
    }
    throw error;
  }
  const { jsonFile, traces: selection } = args;
  return withReplayStack(
    (line) => console.error(`replay: ${line}`),
    async ({ db, serviceUrl, whenInterrupted }) => {
      let config = args.config;
      if (selection) {
        await loadGroundTruthTraces(db);
        try {
          config = replayConfigSchema.parse({ ...config, traces: await resolveTraceSelection(db, selection) });
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          console.error(`replay: --traces: ${error.message}`);
          return 2;
        }
        console.error(`replay: ${config.traces.length} traces: ${config.traces.map((t) => t.taskId).join(", ")}`);
      }
      console.error(`replay: replaying against ${serviceUrl}, concurrency ${config.concurrency}`);
      const summary = await replayExperiment(db, config, serviceUrl, whenInterrupted, (line) => console.error(`replay: ${line}`));
      console.log(formatTable2(summary));
      const perTrace = selection
        ? await experimentTraceResults(
            db,
            summary.experimentId,
            config.traces.map((t) => ({ taskId: t.taskId, writes: routedWrites(t).length })),
          )
        : null;
      if (perTrace) console.log(`\n${formatTraceResults(perTrace)}`);
      if (jsonFile) writeFileSync(jsonFile, `${JSON.stringify(perTrace ? { ...summary, ...perTrace } : summary, null, 2)}\n`);
      return summary.checks.every((c) => c.passed) ? 0 : 1;
    },
  );
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`replay: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  },
);

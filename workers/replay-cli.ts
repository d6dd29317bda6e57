// `npm run replay -- --json FILE [--delays 0,25,100,250] [--schedules 5] [--repetitions 10] [--concurrency N]`
// Runs the paper's replay grid for real, stores it, prints Table 2, writes FILE.
// Exit codes: 0 all checks passed, 1 a check failed or the replay broke, 2 invalid flags.
import { writeFileSync } from "node:fs";
import { parseReplayArgs, UsageError } from "../lib/replay/cli-args";
import { formatTable2 } from "../lib/replay/format";
import { replayExperiment } from "../lib/replay/run-experiment";
import { withReplayStack } from "../lib/replay/stack";

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
  const { config, jsonFile } = args;
  return withReplayStack(
    (line) => console.error(`replay: ${line}`),
    async ({ db, serviceUrl, whenInterrupted }) => {
      console.error(`replay: replaying against ${serviceUrl}, concurrency ${config.concurrency}`);
      const summary = await replayExperiment(db, config, serviceUrl, whenInterrupted);
      console.log(formatTable2(summary));
      if (jsonFile) writeFileSync(jsonFile, `${JSON.stringify(summary, null, 2)}\n`);
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

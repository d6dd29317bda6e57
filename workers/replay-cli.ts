// `npm run replay -- --json FILE [--delays 0,25,100,250] [--schedules 5] [--repetitions 10] [--concurrency N]`
// Runs the paper's replay grid for real, stores it, prints Table 2, writes FILE.
// Exit codes: 0 all checks passed, 1 a check failed or the replay broke, 2 invalid flags.
import { writeFileSync } from "node:fs";
import { openDatabase } from "../lib/db/database";
import { createPrisma } from "../lib/db/prisma";
import { spawnDelayedWriteService } from "../lib/delayed-write/spawn";
import { readServerEnv } from "../lib/env";
import { parseReplayArgs, UsageError } from "../lib/replay/cli-args";
import { formatTable2 } from "../lib/replay/format";
import { replayExperiment } from "../lib/replay/run-experiment";

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
  const log = (line: string) => console.error(`replay: ${line}`);
  const env = readServerEnv();
  const database = await openDatabase(log);
  const service = env.DELAYED_WRITE_URL ? null : await spawnDelayedWriteService();
  const serviceUrl = env.DELAYED_WRITE_URL ?? service!.url;
  const db = createPrisma(database.url);
  try {
    log(`replaying against ${serviceUrl}, concurrency ${args.config.concurrency}`);
    const summary = await replayExperiment(db, args.config, serviceUrl);
    console.log(formatTable2(summary));
    if (args.jsonFile) writeFileSync(args.jsonFile, `${JSON.stringify(summary, null, 2)}\n`);
    return summary.checks.every((c) => c.passed) ? 0 : 1;
  } finally {
    await db.$disconnect();
    await service?.stop();
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`replay: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  },
);

import { openDatabase } from "../../db/database";
import { createPrisma, type Db } from "../../db/prisma";
import { spawnDelayedWriteService } from "../../delayed-write/spawn";
import { readServerEnv } from "../../env";
import type { WhenInterrupted } from "./run-experiment";

/** How long an interrupted command waits for its work's hooks before it stops anyway. */
const HOOK_TIMEOUT_MS = 5_000;

/**
 * What a replay command needs, started and stopped around `work`: the database (embedded unless
 * DATABASE_URL is set) and the delayed-write service (its own process unless DELAYED_WRITE_URL is set).
 */
export async function withReplayStack<T>(
  log: (line: string) => void,
  work: (stack: { db: Db; serviceUrl: string; whenInterrupted: WhenInterrupted }) => Promise<T>,
): Promise<T> {
  const env = readServerEnv();
  const database = await openDatabase(log);
  const service = env.DELAYED_WRITE_URL
    ? null
    : await spawnDelayedWriteService().catch(async (error: unknown) => {
        await database.close();
        throw error;
      });
  const serviceUrl = env.DELAYED_WRITE_URL ?? service!.url;
  const db = createPrisma(database.url);
  const close = async () => {
    await db.$disconnect();
    await service?.stop();
    await database.close();
  };
  // Ctrl-C stops what this command started instead of leaving PostgreSQL and the service behind,
  // after the work's own hooks (a replay marks its experiment interrupted), each bounded.
  const hooks: Array<(signal: NodeJS.Signals) => Promise<void>> = [];
  const interrupted = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping`);
    const bounded = (hook: (signal: NodeJS.Signals) => Promise<void>) =>
      Promise.race([
        hook(signal).catch((error: unknown) => log(`while stopping: ${(error as Error).message}`)),
        new Promise((resolve) => setTimeout(resolve, HOOK_TIMEOUT_MS)),
      ]);
    void Promise.all(hooks.map(bounded))
      .then(close)
      .finally(() => process.exit(130));
  };
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  try {
    return await work({ db, serviceUrl, whenInterrupted: (hook) => hooks.push(hook) });
  } finally {
    process.off("SIGINT", interrupted);
    process.off("SIGTERM", interrupted);
    await close();
  }
}

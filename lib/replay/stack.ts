import { openDatabase } from "../db/database";
import { createPrisma, type Db } from "../db/prisma";
import { spawnDelayedWriteService } from "../delayed-write/spawn";
import { readServerEnv } from "../env";

/**
 * What a replay command needs, started and stopped around `work`: the database (embedded unless
 * DATABASE_URL is set) and the delayed-write service (its own process unless DELAYED_WRITE_URL is set).
 */
export async function withReplayStack<T>(log: (line: string) => void, work: (stack: { db: Db; serviceUrl: string }) => Promise<T>): Promise<T> {
  const env = readServerEnv();
  const database = await openDatabase(log);
  const service = env.DELAYED_WRITE_URL ? null : await spawnDelayedWriteService().catch(async (error: unknown) => {
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
  // Ctrl-C stops what this command started instead of leaving PostgreSQL and the service behind.
  const interrupted = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping`);
    void close().finally(() => process.exit(130));
  };
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  try {
    return await work({ db, serviceUrl });
  } finally {
    process.off("SIGINT", interrupted);
    process.off("SIGTERM", interrupted);
    await close();
  }
}

import path from "node:path";
import { readServerEnv } from "../env";
import { startEmbeddedPostgres } from "./embedded";
import { spawnEmbeddedPostgres } from "./embedded-process";
import { ensureMigrated } from "./migrate";

export interface OpenDatabase {
  url: string;
  embedded: boolean;
  close(): Promise<void>;
}

/**
 * The product's database: the server at DATABASE_URL when it is set, otherwise an embedded
 * PostgreSQL with its data under BOUNDARY_LAB_DATA_DIR/postgres. Either way it is migrated.
 * `ownProcess`: the embedded PostgreSQL runs in a process (group) of its own (`npm start`, which
 * stops it after its children), rather than in this one.
 */
export async function openDatabase(log: (line: string) => void = () => {}, options: { ownProcess?: boolean } = {}): Promise<OpenDatabase> {
  const env = readServerEnv();
  if (env.DATABASE_URL) {
    await ensureMigrated(env.DATABASE_URL, log);
    return { url: env.DATABASE_URL, embedded: false, close: async () => {} };
  }
  const dataDir = path.join(env.BOUNDARY_LAB_DATA_DIR, "postgres");
  const embedded = options.ownProcess ? await spawnEmbeddedPostgres(dataDir, { log }) : await startEmbeddedPostgres(dataDir, log);
  try {
    await ensureMigrated(embedded.url, log);
  } catch (error) {
    await embedded.stop();
    throw error;
  }
  return { url: embedded.url, embedded: true, close: () => embedded.stop() };
}

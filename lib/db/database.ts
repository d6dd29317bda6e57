import path from "node:path";
import { readServerEnv } from "../env";
import { startEmbeddedPostgres } from "./embedded";
import { ensureMigrated } from "./migrate";

export interface OpenDatabase {
  url: string;
  embedded: boolean;
  close(): Promise<void>;
}

/**
 * The product's database: the server at DATABASE_URL when it is set, otherwise an embedded
 * PostgreSQL with its data under BOUNDARY_LAB_DATA_DIR/postgres. Either way it is migrated.
 */
export async function openDatabase(log: (line: string) => void = () => {}): Promise<OpenDatabase> {
  const env = readServerEnv();
  if (env.DATABASE_URL) {
    await ensureMigrated(env.DATABASE_URL, log);
    return { url: env.DATABASE_URL, embedded: false, close: async () => {} };
  }
  const embedded = await startEmbeddedPostgres(path.join(env.BOUNDARY_LAB_DATA_DIR, "postgres"), log);
  try {
    await ensureMigrated(embedded.url, log);
  } catch (error) {
    await embedded.stop();
    throw error;
  }
  return { url: embedded.url, embedded: true, close: () => embedded.stop() };
}

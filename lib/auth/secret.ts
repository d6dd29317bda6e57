import path from "node:path";
import { readOrCreateSecret } from "../db/secret-file";
import type { ServerEnv } from "../env";

/**
 * The secret that signs sessions: BETTER_AUTH_SECRET when set, else one generated on first use and
 * kept in the data folder (readable by its owner only), so that `npm start` needs no setup and
 * sessions survive a restart. Every process of one instance reads the same file.
 */
export function authSecret(env: ServerEnv): string {
  return env.BETTER_AUTH_SECRET ?? readOrCreateSecret(path.join(env.BOUNDARY_LAB_DATA_DIR, "auth-secret"));
}

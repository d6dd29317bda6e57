import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ServerEnv } from "../env";

/**
 * The secret that signs sessions: BETTER_AUTH_SECRET when set, else one generated on first use and
 * kept in the data folder (readable by its owner only), so that `npm start` needs no setup and
 * sessions survive a restart. Every process of one instance reads the same file.
 */
export function authSecret(env: ServerEnv): string {
  if (env.BETTER_AUTH_SECRET) return env.BETTER_AUTH_SECRET;
  const file = path.join(env.BOUNDARY_LAB_DATA_DIR, "auth-secret");
  if (!existsSync(file)) {
    mkdirSync(env.BOUNDARY_LAB_DATA_DIR, { recursive: true });
    try {
      // "wx": two processes starting at once must not each write their own.
      writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600, flag: "wx" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  return readFileSync(file, "utf8").trim();
}

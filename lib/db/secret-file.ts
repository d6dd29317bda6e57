import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * A secret kept in a file readable by its owner only (mode 0600), generated on first use: every
 * process of one instance reads the same one, and it survives restarts.
 */
export function readOrCreateSecret(file: string, bytes = 32): string {
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true });
    try {
      // "wx": two processes starting at once must not each write their own.
      writeFileSync(file, randomBytes(bytes).toString("base64url"), { mode: 0o600, flag: "wx" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  return readFileSync(file, "utf8").trim();
}

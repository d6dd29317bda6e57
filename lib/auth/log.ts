// Better Auth's log, minus the noise: a refused API key is the caller's mistake, answered with a
// 401; the API-key plugin logs each one as an ERROR, which buried real errors under every bad key.
type Level = "debug" | "info" | "warn" | "error";

/** The API-key plugin's refusal of a key that is made up, revoked, disabled or expired. */
export function isRefusedApiKey(message: string, args: readonly unknown[]): boolean {
  if (!message.startsWith("Failed to validate API key")) return false;
  const status = (args[0] as { status?: unknown } | undefined)?.status;
  return status === "UNAUTHORIZED" || status === "FORBIDDEN";
}

export function betterAuthLog(level: Level, message: string, ...args: unknown[]): void {
  if (isRefusedApiKey(message, args)) return;
  const write = level === "error" ? console.error : level === "warn" ? console.warn : console.log;
  write(`[Better Auth] ${message}`, ...args);
}

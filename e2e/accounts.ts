// The accounts e2e/serve.ts makes for the browser tests, written to a file that the specs read once
// the stack is up (Playwright lists the tests before it starts the web server).
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Role } from "../lib/auth/permissions";

export const ACCOUNTS_FILE = path.resolve(".e2e/accounts.json");
export const PASSWORD = "correct horse battery staple";

export interface E2eAccounts {
  users: Record<Role, { id: string; email: string; apiKey: string }>;
  /** A key of the editor's that was revoked before the tests start. */
  revokedApiKey: string;
  /** The experiment serve.ts replayed, and one of its runs. */
  experimentId: string;
  runId: string;
  /** The trace library's banking/user_task_3 (the paper's trace). */
  traceId: string;
  /** The stack's delayed-write service (the Python client's bank scenario writes through it). */
  delayedWriteUrl: string;
}

let cached: E2eAccounts | null = null;
export function accounts(): E2eAccounts {
  cached ??= JSON.parse(readFileSync(ACCOUNTS_FILE, "utf8")) as E2eAccounts;
  return cached;
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

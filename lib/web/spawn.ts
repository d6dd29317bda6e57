import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

const ENTRY = path.resolve("workers/web.ts");

/**
 * Starts the web app's process (workers/web.ts: Next's production server behind the client-address
 * rule) on `port` and `host`, with `env` added to this process's environment. Needs `next build`.
 */
export function spawnWebServer(options: { port: number; host: string; env: Record<string, string | undefined>; output?: "inherit" | "pipe" }): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", ENTRY], {
    env: { ...process.env, ...options.env, PORT: String(options.port), WEB_HOST: options.host, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
    stdio: ["ignore", options.output ?? "inherit", options.output ?? "inherit"],
  });
}

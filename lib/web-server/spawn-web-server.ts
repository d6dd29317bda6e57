import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

/**
 * Rendering a page allocates megabytes of short-lived objects (React's payload and HTML, Prisma's
 * rows): with V8's default 16 MB semi-spaces the web process spent much of its time in GC under load;
 * 128 MB semi-spaces raised the pages' rates (docs/dashboard.md, docs/benchmarks.md).
 */
export const WEB_YOUNG_GENERATION = "--max-semi-space-size=128";

/** The web app's process (workers/web.ts): `node` with these arguments and this environment. The one place it is defined. */
export const webServerCommand = (options: { port: number; host: string }) => ({
  args: [WEB_YOUNG_GENERATION, "--import", "tsx", path.resolve("workers/web.ts")],
  env: { PORT: String(options.port), WEB_HOST: options.host, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" as const },
});

/**
 * Starts the web app's process (workers/web.ts: Next's production server behind the client-address
 * rule) on `port` and `host`, with `env` added to this process's environment. Needs `next build`.
 */
export function spawnWebServer(options: {
  port: number;
  host: string;
  env: Record<string, string | undefined>;
  output?: "inherit" | "pipe";
}): ChildProcess {
  const command = webServerCommand(options);
  return spawn(process.execPath, command.args, {
    env: { ...process.env, ...options.env, ...command.env },
    stdio: ["ignore", options.output ?? "inherit", options.output ?? "inherit"],
  });
}

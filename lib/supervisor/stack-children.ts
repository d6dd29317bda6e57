import path from "node:path";
import { delayedWriteServiceCommand, listeningUrl } from "../delayed-write/spawn";
import { parseEventLine } from "../event-line";
import { webServerCommand } from "../web-server/spawn-web-server";

/** How the supervisor knows a child is ready: a line it prints, or its port accepting connections. */
export type Readiness = { line: (line: string) => boolean } | { port: number; host: string };

/** One process `npm start` supervises: `node <args>` with `env` added to the supervisor's own. */
export interface ChildSpec {
  name: string;
  args: string[];
  env: Record<string, string>;
  ready: Readiness;
  /** How long a child has to exit after SIGTERM before it is killed. */
  stopTimeoutMs: number;
}

export const SERVICE_NAME = "delayed-write service";
export const WEB_NAME = "web app";
export const replayWorkerName = (index: number) => `replay worker ${index}`;

/** A replay worker announces `worker: {"event":"ready",...}` once its pool runs and its first heartbeat is written. */
export const isWorkerReadyLine = (line: string) => parseEventLine(line.replace(/^worker: /, ""))?.event === "ready";

export interface StackOptions {
  databaseUrl: string;
  serviceUrl: string;
  /** The port of the service `npm start` runs, kept across its restarts; null when DELAYED_WRITE_URL names one. */
  servicePort: number | null;
  replayWorkers: number;
  webPort: number;
  webHost: string;
  /** The status file the web app's /api/health reads. */
  stackFile: string;
}

/** The children of `npm start`, in start order: the service (unless one is given), the replay workers, the web app. */
export function stackChildren(options: StackOptions): { service: ChildSpec | null; workers: ChildSpec[]; web: ChildSpec } {
  const stackEnv = { DATABASE_URL: options.databaseUrl, DELAYED_WRITE_URL: options.serviceUrl };
  const service =
    options.servicePort === null
      ? null
      : {
          name: SERVICE_NAME,
          ...delayedWriteServiceCommand(options.servicePort),
          ready: { line: (line: string) => listeningUrl(line) !== null },
          stopTimeoutMs: 10_000,
        };
  const workers = Array.from({ length: options.replayWorkers }, (_, i) => ({
    name: replayWorkerName(i + 1),
    args: ["--import", "tsx", path.resolve("workers/replay-worker.ts")],
    env: { ...stackEnv, HEALTH_PORT: "0" },
    ready: { line: isWorkerReadyLine },
    // The worker finishes its jobs in flight for up to SHUTDOWN_TIMEOUT_MS (30 s by default), then hands the rest back.
    stopTimeoutMs: 35_000,
  }));
  const webServer = webServerCommand({ port: options.webPort, host: options.webHost });
  const web = {
    name: WEB_NAME,
    args: webServer.args,
    env: { ...stackEnv, ...webServer.env, BOUNDARY_LAB_STACK_FILE: options.stackFile },
    // Listening on every address (the default 0.0.0.0) includes loopback.
    ready: { port: options.webPort, host: ["0.0.0.0", "::"].includes(options.webHost) ? "127.0.0.1" : options.webHost },
    // workers/web.ts answers the requests in flight for up to 10 s, then exits.
    stopTimeoutMs: 15_000,
  };
  return { service, workers, web };
}

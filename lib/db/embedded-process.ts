import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { parseEventLine } from "../event-line";
import type { EmbeddedDatabase } from "./embedded";

export interface EmbeddedProcess extends EmbeddedDatabase {
  child: ChildProcess;
}

const START_TIMEOUT_MS = 60_000;

/**
 * Runs the embedded PostgreSQL of `dataDir` in a process of its own (workers/embedded-postgres.ts),
 * in its own process group: a Ctrl-C in the terminal then reaches only the process that started it,
 * which stops it last, after everything that uses it; and it can be restarted on the same `port`.
 * stop() asks it to stop the cluster and waits for it to exit.
 */
export function spawnEmbeddedPostgres(
  dataDir: string,
  options: { port?: number; log?: (line: string) => void } = {},
): Promise<EmbeddedProcess> {
  const log = options.log ?? (() => {});
  const args = [
    "--import",
    "tsx",
    path.resolve("workers/embedded-postgres.ts"),
    dataDir,
    ...(options.port === undefined ? [] : [String(options.port)]),
  ];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], detached: true });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  createInterface({ input: child.stderr! }).on("line", log);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`embedded PostgreSQL did not start within ${START_TIMEOUT_MS / 1000} s`));
    }, START_TIMEOUT_MS);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`embedded PostgreSQL's process exited (${signal ?? `code ${code}`}) before it was ready`));
    });
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const event = parseEventLine(line);
      if (event?.event !== "ready" || !event.url) return log(line);
      clearTimeout(timer);
      resolve({ url: event.url, child, stop });
    });
  });
}

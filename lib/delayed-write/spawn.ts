import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { parseEventLine } from "../event-line";

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** The service's process: `node` with these arguments and this environment (port 0: any free port). */
export const delayedWriteServiceCommand = (port: number) => ({
  args: ["--import", "tsx", path.resolve("workers/delayed-write.ts")],
  env: { PORT: String(port), HOST: "127.0.0.1" },
});

/** The URL the service announces on stdout once it listens, or null for any other line. */
export function listeningUrl(line: string): string | null {
  const event = parseEventLine(line);
  return event?.event === "listening" ? (event.url ?? null) : null;
}

/** Starts the delayed-write service as its own process on a free port and waits until it listens. */
export function spawnDelayedWriteService(options: { port?: number } = {}): Promise<ServiceProcess> {
  const command = delayedWriteServiceCommand(options.port ?? 0);
  const child = spawn(process.execPath, command.args, {
    env: { ...process.env, ...command.env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => reject(new Error("delayed-write service did not start within 20 s")), 20_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`delayed-write service exited with code ${code} before listening`));
    });
    lines.on("line", (line) => {
      const url = listeningUrl(line);
      if (url) {
        clearTimeout(timer);
        resolve({ url, child, stop });
      }
    });
  });
}

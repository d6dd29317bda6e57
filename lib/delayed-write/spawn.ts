import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

const ENTRY = path.resolve("workers/delayed-write.ts");

/** Starts the delayed-write service as its own process on a free port and waits until it listens. */
export function spawnDelayedWriteService(options: { port?: number } = {}): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", ENTRY], {
    env: { ...process.env, PORT: String(options.port ?? 0), HOST: "127.0.0.1" },
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
      try {
        const event = JSON.parse(line) as { event?: string; url?: string };
        if (event.event === "listening" && event.url) {
          clearTimeout(timer);
          resolve({ url: event.url, child, stop });
        }
      } catch {
        // not one of the service's JSON lines
      }
    });
  });
}

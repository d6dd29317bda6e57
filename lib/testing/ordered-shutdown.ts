import type { ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";

/**
 * For scripts that start a stack (e2e/serve.ts, scripts/bench-dashboard.ts): what they started is
 * stopped last started first, each within a timeout, then their temp folder is removed and the
 * process exits. Signals stop it the same way. A failed or timed-out stop makes the exit code 1.
 */
export function orderedShutdown(options: {
  dataDir: string;
  stopTimeoutMs: number;
  log: (line: string) => void;
  signalExitCode: number;
  logReasonOnSuccess: boolean;
}) {
  const stops: { name: string; stop: () => Promise<void> }[] = [];
  let stopping = false;

  async function shutdown(code: number, reason: string): Promise<never> {
    if (!stopping) {
      stopping = true;
      if (code !== 0 || options.logReasonOnSuccess) options.log(`stopping (${reason})`);
      for (const { name, stop } of stops.reverse()) {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            stop(),
            new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("timed out")), options.stopTimeoutMs))),
          ]);
        } catch (error) {
          options.log(`stopping ${name} failed: ${(error as Error).message}`);
          code = code || 1;
        } finally {
          clearTimeout(timer);
        }
      }
      rmSync(options.dataDir, { recursive: true, force: true });
      // The embedded cluster's generated password sits beside its folder (lib/db/embedded.ts).
      rmSync(`${options.dataDir}.password`, { force: true });
      process.exit(code);
    }
    return new Promise<never>(() => {});
  }

  for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => void shutdown(options.signalExitCode, signal));

  return {
    /** Registers something to stop; it is stopped before everything registered earlier. */
    onStop: (name: string, stop: () => Promise<void>) => void stops.push({ name, stop }),
    shutdown,
    stopping: () => stopping,
  };
}

/** Resolves once a child process has exited, sending it SIGTERM if it is still running. */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

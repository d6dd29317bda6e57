// The primary of WEB_PROCESSES web processes (node:cluster) serving one port: a page's rendering holds
// a process's one thread, so one process renders on one core whatever the machine has. The primary
// serves nothing. It forks the processes and relays what one asks the others to forget
// (lib/auth/sibling-messages.ts). It restarts a process that dies (lib/supervisor/restart-policy.ts), and
// exits 1 when one dies before it listened. On SIGTERM or SIGINT, or once its supervisor is gone, it
// passes the signal on and exits once they have finished.
import cluster, { type Worker } from "node:cluster";
import { decideRestart, NO_CRASHES, type CrashHistory } from "./restart-policy";
import { siblingMessageSchema } from "../auth/sibling-messages";
import { stopWithSupervisor } from "./with-supervisor";

/** A process that has not exited this long after the signal is killed (each finishes its requests within 10 s). */
const STOP_TIMEOUT_MS = 15_000;

export function runWebProcesses(count: number, log: (line: string) => void): void {
  let stopping = false;
  const histories = new Map<number, CrashHistory>();

  const fork = (slot: number) => {
    const startedAtMs = Date.now();
    const worker = cluster.fork();
    worker.on("message", (message: unknown) => {
      const parsed = siblingMessageSchema.safeParse(message);
      if (!parsed.success) return;
      for (const other of Object.values(cluster.workers ?? {}))
        if (other && other !== worker && other.isConnected()) other.send(parsed.data);
    });
    let listened = false;
    worker.once("listening", () => (listened = true));
    worker.on("exit", (code, signal) => {
      if (stopping) return;
      // Failing to start (no build, a bad port) is not passing: the web app exits, and its supervisor says so.
      if (!listened) {
        log(`web process ${slot} (pid ${worker.process.pid}) exited (${signal ?? code}) before it listened: stopping`);
        return stop("SIGTERM", 1);
      }
      const decision = decideRestart(histories.get(slot) ?? NO_CRASHES, { startedAtMs, exitAtMs: Date.now() });
      histories.set(slot, decision.history);
      log(`web process ${slot} (pid ${worker.process.pid}) exited (${signal ?? code}): ${decision.state}, again in ${decision.delayMs} ms`);
      setTimeout(() => stopping || fork(slot), decision.delayMs);
    });
  };
  for (let slot = 1; slot <= count; slot++) fork(slot);
  log(`${count} web processes`);

  function stop(signal: NodeJS.Signals, code = 0) {
    if (stopping) return;
    stopping = true;
    const running = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
    let left = running.length;
    if (left === 0) process.exit(code);
    for (const worker of running) {
      worker.once("exit", () => --left === 0 && process.exit(code));
      worker.process.kill(signal);
    }
    setTimeout(() => {
      log(`web processes still running ${STOP_TIMEOUT_MS / 1000} s after ${signal}: killed`);
      for (const worker of running) worker.process.kill("SIGKILL");
      process.exit(1);
    }, STOP_TIMEOUT_MS).unref();
  }
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  stopWithSupervisor(() => stop("SIGTERM"));
}

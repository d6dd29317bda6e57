/** The process replaying an experiment in-process, as it last recorded itself. */
export interface Runner {
  host: string;
  pid: number;
  heartbeatAt: Date;
}

/** A runner heartbeat older than this means its process is gone (it beats every second). */
export const RUNNER_STALE_AFTER_MS = 10_000;

/**
 * Whether the process replaying an experiment is gone (killed, crashed, its machine down): its
 * heartbeat stopped, or, seen from its own host, its pid no longer runs. A process on another host
 * can be judged by its heartbeat only.
 */
export function runnerGone(runner: Runner, observer: { host: string; now: Date; pidAlive: (pid: number) => boolean }): boolean {
  if (observer.now.getTime() - runner.heartbeatAt.getTime() > RUNNER_STALE_AFTER_MS) return true;
  return runner.host === observer.host && !observer.pidAlive(runner.pid);
}

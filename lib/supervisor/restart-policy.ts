/**
 * When `npm start` restarts a child that exited without being asked to (a pure rule: times are values).
 *
 * Each unexpected exit is a crash. A crash is followed by a restart after a backoff that doubles with
 * every crash still inside the window (250 ms, 500 ms, 1 s, 2 s with the defaults). The crash that
 * reaches `crashLimit` within `crashWindowMs` makes the child "crashed": it is left down for
 * `crashedPauseMs` (the supervisor says so in the status file and /api/health), then tried once more.
 * A child that crashes again within a window of that attempt goes straight back to "crashed"; a child
 * that ran for a whole window before exiting starts with a clean history.
 */
export interface RestartPolicy {
  initialBackoffMs: number;
  crashLimit: number;
  crashWindowMs: number;
  crashedPauseMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  initialBackoffMs: 250,
  crashLimit: 5,
  crashWindowMs: 60_000,
  crashedPauseMs: 5 * 60_000,
};

/** What the policy remembers of a child between its exits. */
export interface CrashHistory {
  /** Times of the crashes inside the window, oldest first. */
  crashesAtMs: number[];
  /** The child was reported crashed and the current run is its one attempt after the pause. */
  crashed: boolean;
}

export const NO_CRASHES: CrashHistory = { crashesAtMs: [], crashed: false };

export interface RestartDecision {
  state: "restarting" | "crashed";
  /** How long to wait before starting the child again. */
  delayMs: number;
  /** The history to keep for the next decision. */
  history: CrashHistory;
}

/** Decides what follows an unexpected exit at `exitAtMs` of a child started at `startedAtMs`. */
export function decideRestart(
  history: CrashHistory,
  run: { startedAtMs: number; exitAtMs: number },
  policy: RestartPolicy = DEFAULT_RESTART_POLICY,
): RestartDecision {
  const ranStably = run.exitAtMs - run.startedAtMs >= policy.crashWindowMs;
  const earlier = ranStably ? [] : history.crashesAtMs.filter((at) => at > run.exitAtMs - policy.crashWindowMs);
  const crashesAtMs = [...earlier, run.exitAtMs];
  if ((history.crashed && !ranStably) || crashesAtMs.length >= policy.crashLimit) {
    return { state: "crashed", delayMs: policy.crashedPauseMs, history: { crashesAtMs, crashed: true } };
  }
  return {
    state: "restarting",
    delayMs: policy.initialBackoffMs * 2 ** (crashesAtMs.length - 1),
    history: { crashesAtMs, crashed: false },
  };
}

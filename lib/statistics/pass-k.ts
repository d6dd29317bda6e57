// pass^k and pass@k as τ-bench defines them (Yao et al. 2024, "τ-bench: a benchmark for
// tool-agent-user interaction in real-world domains", arXiv:2406.12045): for a task with n trials
// and c successes, pass^k = C(c, k)/C(n, k) (all of k i.i.d. trials succeed) and
// pass@k = 1 − C(n − c, k)/C(n, k) (at least one does), each averaged over tasks. Both assume the
// trials are separate units; where one trial could change another (the paper, §3; docs/evaluations.md, Rule 2) the figure
// is refused with the reason, never computed.
import { morePublic, type InheritedState } from "../replay/rules/inherited-state";
import { binomial, exactRatio } from "./exact";

/** One trial of a task: the analysis unit it belongs to (trials sharing one are connected), its outcome and what it inherited. */
export interface Trial {
  taskId: string;
  unitId: string;
  success: boolean;
  inheritedState: InheritedState;
}

/** A task's trials, counted: how many, how many succeeded, in how many distinct analysis units, and the worst inherited state among them. */
export interface TaskTrials {
  taskId: string;
  trials: number;
  successes: number;
  analysisUnits: number;
  inheritedState: InheritedState;
}

export type PassKResult =
  | { available: false; reason: string }
  | {
      available: true;
      /** k = 1..n with n the fewest trials any task has; `value` is pass^k, `passAtK` is pass@k. */
      values: Array<{ k: number; value: number; passAtK: number }>;
    };

/** Counts trials per task (in order of first appearance), for callers that hold trials one by one. */
export function tasksFromTrials(trials: readonly Trial[]): TaskTrials[] {
  const tasks = new Map<string, TaskTrials & { units: Set<string> }>();
  for (const trial of trials) {
    const task = tasks.get(trial.taskId) ?? {
      taskId: trial.taskId,
      trials: 0,
      successes: 0,
      analysisUnits: 0,
      inheritedState: "none",
      units: new Set<string>(),
    };
    task.trials += 1;
    if (trial.success) task.successes += 1;
    task.units.add(trial.unitId);
    task.analysisUnits = task.units.size;
    task.inheritedState = morePublic(task.inheritedState, trial.inheritedState);
    tasks.set(trial.taskId, task);
  }
  return [...tasks.values()].map(({ units: _units, ...task }) => task);
}

/** Why pass^k cannot be read as τ-bench's i.i.d. quantity for these tasks, or null when it can. */
function passKRefusal(tasks: readonly TaskTrials[]): string | null {
  if (tasks.length === 0) return "no trials";
  const inherited = tasks.find((task) => task.inheritedState !== "none");
  if (inherited)
    return `trials of task ${inherited.taskId} carry inherited state "${inherited.inheritedState}": an earlier run could change them, so they are not independent trials`;
  const connected = tasks.find((task) => task.analysisUnits < task.trials);
  if (connected)
    return `trials of task ${connected.taskId} are connected: ${connected.trials} trials in ${connected.analysisUnits} analysis units`;
  const empty = tasks.find((task) => task.trials === 0);
  if (empty) return `task ${empty.taskId} has no trials`;
  return null;
}

/**
 * pass^k and pass@k for k = 1..n, n the fewest trials of any task (a task with more trials
 * still uses its own n: C(c, k)/C(n, k) is unbiased for any k ≤ n). Each mean over tasks is
 * an exact fraction, rounded once (pass@k's complement included).
 */
export function passK(tasks: readonly TaskTrials[]): PassKResult {
  const reason = passKRefusal(tasks);
  if (reason) return { available: false, reason };
  const fewest = tasks.reduce((least, task) => Math.min(least, task.trials), Infinity);
  const values = [];
  for (let k = 1; k <= fewest; k++) {
    const allSucceed = meanOverTasks(tasks, (task) => binomial(task.successes, k), k);
    const allFail = meanOverTasks(tasks, (task) => binomial(task.trials - task.successes, k), k);
    values.push({
      k,
      value: exactRatio(allSucceed.numerator, allSucceed.denominator),
      passAtK: exactRatio(allFail.denominator - allFail.numerator, allFail.denominator),
    });
  }
  return { available: true, values };
}

/** (1/T) Σ numerator(task)/C(n_task, k) as an exact fraction: tasks with equal n share a denominator. */
function meanOverTasks(
  tasks: readonly TaskTrials[],
  numerator: (task: TaskTrials) => bigint,
  k: number,
): { numerator: bigint; denominator: bigint } {
  const byTrials = new Map<number, bigint>();
  for (const task of tasks) byTrials.set(task.trials, (byTrials.get(task.trials) ?? 0n) + numerator(task));
  let sumNumerator = 0n;
  let sumDenominator = 1n;
  for (const [trials, summed] of byTrials) {
    const denominator = binomial(trials, k);
    sumNumerator = sumNumerator * denominator + summed * sumDenominator;
    sumDenominator *= denominator;
  }
  return { numerator: sumNumerator, denominator: sumDenominator * BigInt(tasks.length) };
}

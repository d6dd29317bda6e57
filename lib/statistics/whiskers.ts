// Where a chart draws a rate, it draws the rate's 95% Wilson interval as whiskers. Recharts'
// ErrorBar takes the distances [below, above] the drawn value, not the interval's ends.
import { wilsonInterval, type Interval } from "./wilson";

/** [below, above] the rate for an interval around it; [0, 0] (no whisker) without a rate or interval. */
export function whiskerOffsets(rate: number | null, interval: Interval | null): [below: number, above: number] {
  if (rate === null || interval === null) return [0, 0];
  return [Math.max(0, rate - interval[0]), Math.max(0, interval[1] - rate)];
}

/** The whisker of n/N's Wilson interval around n/N; [0, 0] when N = 0 (nothing observed, nothing drawn). */
export function wilsonWhisker(successes: number, trials: number): [below: number, above: number] {
  return whiskerOffsets(trials === 0 ? null : successes / trials, wilsonInterval(successes, trials));
}

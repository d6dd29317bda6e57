/**
 * How many units a worker replays at once, adapted to its own lateness (additive increase,
 * multiplicative decrease). Workers sharing a machine cannot see each other's load, but each sees
 * when a unit of its own lost a race against its delay (harness-timing.ts): it then halves its
 * share, and grows back by one unit per full round of units that were on time.
 */
export class AdmissionControl {
  private onTimeStreak = 0;
  current: number;

  constructor(
    readonly max: number,
    readonly min = Math.min(4, max),
  ) {
    this.current = max;
  }

  /** An attempt was late: halve. Returns the concurrency to use from now on. */
  recordLate(): number {
    this.onTimeStreak = 0;
    this.current = Math.max(this.min, Math.floor(this.current / 2));
    return this.current;
  }

  /** A unit finished on time: one more unit at once after a full round of them. */
  recordOnTime(): number {
    if (++this.onTimeStreak >= this.current && this.current < this.max) {
      this.onTimeStreak = 0;
      this.current++;
    }
    return this.current;
  }
}

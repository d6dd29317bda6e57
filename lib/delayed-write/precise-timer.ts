/** Milliseconds since the process started, from the monotonic high-resolution clock. */
export const monotonicNowMs = (): number => performance.now();

/** setTimeout may wake ~1 ms late (or early against this clock); it is aimed this far early and the rest is spun. */
const SPIN_WINDOW_MS = 1.5;

interface Entry {
  atMs: number;
  fn: () => void;
  cancelled: boolean;
}

/**
 * Runs callbacks as soon as the monotonic clock reaches their time, never before. One coarse
 * timer serves every pending callback, and the last ~1.5 ms are spun on setImmediate by a single
 * loop, which yields to I/O between checks so other requests are still served.
 */
export class PreciseScheduler {
  private queue: Entry[] = []; // sorted by atMs
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private spinning = false;

  runAt(atMs: number, fn: () => void): () => void {
    const entry: Entry = { atMs, fn, cancelled: false };
    let lo = 0;
    let hi = this.queue.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.queue[mid]!.atMs <= atMs) lo = mid + 1;
      else hi = mid;
    }
    this.queue.splice(lo, 0, entry);
    this.arm();
    return () => {
      entry.cancelled = true;
    };
  }

  private arm(): void {
    if (this.spinning) return;
    const next = this.queue[0];
    if (!next) return;
    const wait = next.atMs - monotonicNowMs() - SPIN_WINDOW_MS;
    if (wait <= 0) {
      this.spinning = true;
      setImmediate(this.spin);
      return;
    }
    if (this.timer && this.timerAt <= next.atMs) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = next.atMs;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.arm();
    }, wait);
  }

  private readonly spin = (): void => {
    const now = monotonicNowMs();
    while (this.queue.length && this.queue[0]!.atMs <= now) {
      const entry = this.queue.shift()!;
      if (!entry.cancelled) entry.fn();
    }
    while (this.queue.length && this.queue[0]!.cancelled) this.queue.shift();
    const next = this.queue[0];
    if (next && next.atMs - monotonicNowMs() <= SPIN_WINDOW_MS) {
      setImmediate(this.spin);
      return;
    }
    this.spinning = false;
    this.arm();
  };
}

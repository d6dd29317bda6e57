// The Wilson score interval (Wilson 1927, "Probable inference, the law of succession, and
// statistical inference", JASA 22:209–212): unlike the normal approximation it stays inside
// [0, 1] and keeps a nonzero width at 0/N and N/N, where small samples need it most.

/** The 97.5th percentile of the standard normal: a two-sided 95 % interval. */
export const WILSON_Z_95 = 1.959963984540054;

/** A closed interval [lower, upper] on a rate. */
export type Interval = readonly [lower: number, upper: number];

/**
 * The 95 % Wilson interval for a success proportion `proportion` observed over `size` trials,
 * where `size` may be fractional (a design-effect-adjusted sample size). Null when size is 0:
 * nothing was observed, so there is no interval to give.
 *
 *   centre = (p + z²/2N) / (1 + z²/N),  half-width = z/(1 + z²/N) · √(p(1 − p)/N + z²/4N²)
 */
export function wilsonForProportion(proportion: number, size: number): Interval | null {
  if (!(size >= 0) || !Number.isFinite(size)) throw new RangeError(`size: a finite number ≥ 0, got ${size}`);
  if (!(proportion >= 0 && proportion <= 1)) throw new RangeError(`proportion: in [0, 1], got ${proportion}`);
  if (size === 0) return null;
  const z2 = WILSON_Z_95 * WILSON_Z_95;
  const denominator = 1 + z2 / size;
  const centre = (proportion + z2 / (2 * size)) / denominator;
  const halfWidth = (WILSON_Z_95 / denominator) * Math.sqrt((proportion * (1 - proportion)) / size + z2 / (4 * size * size));
  // The bounds are exactly 0 at p = 0 and 1 at p = 1; rounding must not push them past.
  const lower = proportion === 0 ? 0 : Math.max(0, centre - halfWidth);
  const upper = proportion === 1 ? 1 : Math.min(1, centre + halfWidth);
  return [lower, upper];
}

/** The 95 % Wilson interval for n successes out of N trials (whole counts); null when N = 0. */
export function wilsonInterval(successes: number, trials: number): Interval | null {
  if (!Number.isInteger(trials) || trials < 0) throw new RangeError(`trials: a whole number ≥ 0, got ${trials}`);
  if (!Number.isInteger(successes) || successes < 0 || successes > trials)
    throw new RangeError(`successes: a whole number in [0, ${trials}], got ${successes}`);
  return wilsonForProportion(trials === 0 ? 0 : successes / trials, trials);
}

const percent = (value: number) => `${(100 * value).toFixed(1)}%`;

/** "95% Wilson [68.6%, 80.5%]" for n/N, or null when N = 0: how pages print the interval beside n/N. */
export function formatWilson95(successes: number, trials: number): string | null {
  const interval = wilsonInterval(successes, trials);
  if (!interval) return null;
  return `95% Wilson [${percent(interval[0])}, ${percent(interval[1])}]`;
}

/** "95% Wilson 68.6%–80.5%", as a chart's tooltip and text alternative name a whisker; "no interval (N = 0)" without one. */
export function intervalWords(interval: Interval | null): string {
  if (!interval) return "no interval (N = 0)";
  return `95% Wilson ${percent(interval[0])}–${percent(interval[1])}`;
}

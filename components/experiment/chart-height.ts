import type { ChartSpec } from "./chart-specs";

// Apart from chart-specs.ts, which imports the label tables (and through them zod): the lazy wrapper
// needs only this, and must not pull those into every chart page's first load.

/** The chart's drawn height in px: the comparison plot grows with its evaluations, the others are fixed. */
export const chartHeight = (spec: ChartSpec) => (spec.kind === "comparison" ? 96 + 64 * spec.evaluations.length : 300);

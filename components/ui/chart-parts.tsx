"use client";

import { Rectangle } from "recharts";

// What every Recharts chart here shares: axis ticks and tooltips in the theme's tokens, and a rate's
// Wilson whisker. Imported only by chart modules, which load when a chart comes into view.

export const AXIS = { fill: "var(--muted-foreground)", fontSize: 11 };
export const TOOLTIP = {
  contentStyle: { background: "var(--card)", border: "1px solid var(--border)", color: "var(--foreground)", borderRadius: 6, fontSize: 12 },
  itemStyle: { color: "var(--foreground)" },
};
/** A rate's 95% Wilson whisker, drawn at once (an animated whisker is caught half-grown by a screenshot or a reader). */
export const WHISKER = { width: 8, strokeWidth: 1.5, stroke: "var(--foreground)", isAnimationActive: false } as const;

/**
 * Recharts drops a zero-height bar's rectangle, and its whisker with it, unless the bar has its own
 * shape: this plain one keeps 0/N's whisker (its Wilson upper bound) on the chart.
 */
export const barShape = (props: React.ComponentProps<typeof Rectangle>) => <Rectangle {...props} />;

"use client";

import { Bar, BarChart, CartesianGrid, ErrorBar, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { AXIS, TOOLTIP, WHISKER, barShape } from "@/components/ui/chart-parts";
import type { SensitivityRowAnswer } from "@/lib/statistics/answer-schema";
import { whiskerOffsets } from "@/lib/statistics/whiskers";

// Recharts draws in the browser only, and this module is loaded only when the chart scrolls into
// view (lazy-sensitivity-chart.tsx). Each bar is one rule's headline rate with its Wilson interval;
// the dashed line is the declared target, when there is one.

export default function SensitivityChart({ rows, threshold }: { rows: SensitivityRowAnswer[]; threshold?: number }) {
  const data = rows.map((row) => ({
    rule: row.rule,
    rate: row.rate ?? 0,
    interval: whiskerOffsets(row.rate, row.wilson95),
    label: `${row.n}/${row.N}`,
  }));
  return (
    <ResponsiveContainer width="100%" height={280}>
      <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
        <CartesianGrid stroke="var(--border)" vertical={false} />
        <XAxis dataKey="rule" tick={AXIS} interval={0} height={60} />
        <YAxis domain={[0, 1]} tickFormatter={(v: number) => `${Math.round(v * 100)}%`} tick={AXIS} />
        <Tooltip
          {...TOOLTIP}
          formatter={(value, _name, item) => [
            `${(item.payload as { label: string }).label} (${(100 * Number(value)).toFixed(1)}%)`,
            "rate",
          ]}
        />
        <Bar dataKey="rate" fill="var(--chart-1)" shape={barShape} isAnimationActive={false}>
          <ErrorBar dataKey="interval" direction="y" {...WHISKER} />
        </Bar>
        {threshold === undefined ? null : (
          <ReferenceLine
            y={threshold}
            stroke="var(--chart-3)"
            strokeDasharray="6 3"
            label={{
              value: `target ${(100 * threshold).toFixed(0)}%`,
              fill: "var(--foreground)",
              fontSize: 11,
              position: "insideTopRight",
            }}
          />
        )}
      </BarChart>
    </ResponsiveContainer>
  );
}

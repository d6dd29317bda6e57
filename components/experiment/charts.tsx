"use client";

import { Bar, BarChart, CartesianGrid, ErrorBar, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { CONDITION_LABELS, POLICY_LABELS } from "@/lib/format/replay-labels";
import { coincidentSeries, type ChartSpec } from "./chart-specs";

// Recharts draws in the browser only (STACK.md), and this module is loaded only when a chart scrolls
// into view (lazy-chart.tsx): the page's first load carries none of it. Colours are the theme's
// chart tokens; lines differ by dash and marker as well as colour.

const COLORS = ["var(--chart-1)", "var(--chart-2)", "var(--chart-3)", "var(--chart-4)", "var(--chart-5)", "var(--chart-6)"];
const DASHES = ["", "6 3", "2 2", "8 3 2 3", "1 3", "10 4"];
const rate = (n: number, of: number) => (of === 0 ? 0 : n / of);
const pct = (v: number) => `${Math.round(v * 100)}%`;
const AXIS = { fill: "var(--muted-foreground)", fontSize: 11 };
const TOOLTIP = {
  contentStyle: { background: "var(--card)", border: "1px solid var(--border)", color: "var(--foreground)", borderRadius: 6, fontSize: 12 },
  itemStyle: { color: "var(--foreground)" },
};
const LEGEND = { wrapperStyle: { fontSize: 12, color: "var(--foreground)" } };

/** Splits a label into lines of about `width` characters at spaces. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const word of text.split(" ")) {
    const last = lines.at(-1);
    if (last !== undefined && `${last} ${word}`.length <= width) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines;
}

/** An x-axis label on as many lines as it needs, so that neighbours never run together. */
function WrappedTick({ x, y, payload }: { x?: number; y?: number; payload?: { value: string } }) {
  const lines = wrap(String(payload?.value ?? ""), 13);
  return (
    <g transform={`translate(${x ?? 0},${y ?? 0})`}>
      <text textAnchor="middle" fill={AXIS.fill} fontSize={AXIS.fontSize}>
        {lines.map((line, i) => (
          <tspan key={i} x={0} dy={i === 0 ? 12 : 13}>
            {line}
          </tspan>
        ))}
      </text>
    </g>
  );
}

const wrappedHeight = (labels: string[]) => 18 + 13 * Math.max(1, ...labels.map((l) => wrap(l, 13).length));

/** Tooltip rows as "n/N (x%)": a rate never without its denominator. */
const ratioText = (n: number, of: number) => `${n}/${of} (${pct(rate(n, of))})`;

export default function ExperimentChart({ spec }: { spec: ChartSpec }) {
  return (
    <ResponsiveContainer width="100%" height={300}>
      {chart(spec)}
    </ResponsiveContainer>
  );
}

function chart(spec: ChartSpec): React.ReactElement {
  switch (spec.kind) {
    case "disagreement": {
      const series = coincidentSeries(spec.rows);
      const delays = [...new Set(spec.rows.map((r) => r.delayMs))].sort((a, b) => a - b);
      const data = delays.map((delayMs) => {
        const point: Record<string, number | string> = { delay: `${delayMs} ms` };
        for (const s of series) {
          const r = spec.rows.find((x) => x.policy === s.policies[0] && x.delayMs === delayMs);
          if (r) point[s.label] = rate(r.disagreements, r.trials);
        }
        return point;
      });
      return (
        <LineChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 4 }} accessibilityLayer={false}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--chart-grid)" />
          <XAxis dataKey="delay" tick={AXIS} />
          <YAxis domain={[0, 1]} tickFormatter={pct} tick={AXIS} width={44} />
          <Tooltip
            {...TOOLTIP}
            formatter={(_value: unknown, name: unknown, item: { payload?: Record<string, unknown> }) => {
              const s = series.find((x) => x.label === name);
              const parts = (s?.policies ?? []).map((p) => {
                const r = spec.rows.find((x) => x.policy === p && `${x.delayMs} ms` === item.payload?.delay);
                return r ? `${POLICY_LABELS[p]} ${r.disagreements}/${r.trials}` : "";
              });
              return [parts.filter(Boolean).join("; "), String(name)];
            }}
          />
          <Legend {...LEGEND} />
          {series.map((s, i) => (
            <Line
              key={s.label}
              dataKey={s.label}
              stroke={COLORS[i % COLORS.length]}
              strokeDasharray={DASHES[i % DASHES.length]}
              strokeWidth={2}
              dot={{ r: 3 + (i % 3), strokeWidth: 2 }}
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      );
    }
    case "successes": {
      const data = spec.finality.map((f) => ({
        policy: POLICY_LABELS[f.policy],
        share: rate(f.successes, f.trials),
        n: f.successes,
        of: f.trials,
      }));
      return (
        <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 4 }} accessibilityLayer={false}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--chart-grid)" />
          <XAxis dataKey="policy" interval={0} tick={<WrappedTick />} height={wrappedHeight(data.map((d) => d.policy))} />
          <YAxis domain={[0, 1]} tickFormatter={pct} tick={AXIS} width={44} />
          <Tooltip
            {...TOOLTIP}
            formatter={(_v: unknown, _n: unknown, item: { payload?: { n: number; of: number } }) => [
              ratioText(item.payload?.n ?? 0, item.payload?.of ?? 0),
              "Recorded successes",
            ]}
          />
          <Bar dataKey="share" name="Recorded successes" fill={COLORS[0]} isAnimationActive={false} />
        </BarChart>
      );
    }
    case "exposure": {
      const data = spec.separation.map((s) => ({
        condition: CONDITION_LABELS[s.condition],
        share: rate(s.exposures, s.pairs),
        n: s.exposures,
        of: s.pairs,
      }));
      return (
        <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 4 }} accessibilityLayer={false}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--chart-grid)" />
          <XAxis dataKey="condition" interval={0} tick={<WrappedTick />} height={wrappedHeight(data.map((d) => d.condition))} />
          <YAxis domain={[0, 1]} tickFormatter={pct} tick={AXIS} width={44} />
          <Tooltip
            {...TOOLTIP}
            formatter={(_v: unknown, _n: unknown, item: { payload?: { n: number; of: number } }) => [
              ratioText(item.payload?.n ?? 0, item.payload?.of ?? 0),
              "Exposures",
            ]}
          />
          <Bar dataKey="share" name="Exposures" fill={COLORS[1]} isAnimationActive={false} />
        </BarChart>
      );
    }
    case "units": {
      const data = spec.separation.map((s) => ({
        condition: CONDITION_LABELS[s.condition],
        "Run rows": s.runRows,
        "Analysis units": s.analysisUnits,
      }));
      return (
        <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 4 }} accessibilityLayer={false}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--chart-grid)" />
          <XAxis dataKey="condition" interval={0} tick={<WrappedTick />} height={wrappedHeight(data.map((d) => d.condition))} />
          <YAxis allowDecimals={false} tick={AXIS} width={56} />
          <Tooltip {...TOOLTIP} />
          <Legend {...LEGEND} />
          <Bar dataKey="Run rows" fill={COLORS[0]} isAnimationActive={false} />
          <Bar dataKey="Analysis units" fill={COLORS[2]} isAnimationActive={false} />
        </BarChart>
      );
    }
    case "delays": {
      const data = spec.delays.map((d) => ({
        nominal: `${d.nominalMs} ms`,
        Nominal: d.nominalMs,
        "Median measured": d.medianMs,
        "p99 measured": d.p99Ms,
      }));
      const widest = Math.max(0, ...spec.delays.map((d) => d.p99Ms));
      return (
        <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 8 }} accessibilityLayer={false}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--chart-grid)" />
          <XAxis dataKey="nominal" tick={AXIS} />
          {/* Wide enough for the longest label ("1,250 ms"): nothing is clipped. */}
          <YAxis
            tick={AXIS}
            width={16 + 7 * `${Math.ceil(widest).toLocaleString("en-US")} ms`.length}
            tickFormatter={(v: number) => `${v.toLocaleString("en-US")} ms`}
          />
          <Tooltip {...TOOLTIP} formatter={(v: unknown, name: unknown) => [`${Number(v).toFixed(3)} ms`, String(name)]} />
          <Legend {...LEGEND} />
          <Bar dataKey="Nominal" fill="var(--muted-foreground)" isAnimationActive={false} />
          <Bar dataKey="Median measured" fill={COLORS[0]} isAnimationActive={false} />
          <Bar dataKey="p99 measured" fill={COLORS[3]} isAnimationActive={false} />
        </BarChart>
      );
    }
    case "evaluationRates": {
      const { reported, final, bounds } = spec.summary;
      const lower = rate(bounds.lower.successes, bounds.lower.n);
      const upper = rate(bounds.upper.successes, bounds.upper.n);
      // The bounds bound the true rate over all runs: drawn as the range around the reported bar.
      const data = [
        {
          measure: "Reported (all runs)",
          share: rate(reported.successes, reported.n),
          n: reported.successes,
          of: reported.n,
          range: [rate(reported.successes, reported.n) - lower, upper - rate(reported.successes, reported.n)],
        },
        { measure: "Final only (final runs)", share: rate(final.successes, final.n), n: final.successes, of: final.n, range: [0, 0] },
      ];
      return (
        <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 4 }} accessibilityLayer={false}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--chart-grid)" />
          <XAxis dataKey="measure" interval={0} tick={<WrappedTick />} height={wrappedHeight(data.map((d) => d.measure))} />
          <YAxis domain={[0, 1]} tickFormatter={pct} tick={AXIS} width={44} />
          <Tooltip
            {...TOOLTIP}
            formatter={(_v: unknown, _n: unknown, item: { payload?: { n: number; of: number; measure: string } }) => [
              `${ratioText(item.payload?.n ?? 0, item.payload?.of ?? 0)}${item.payload?.measure.startsWith("Reported") ? `; true rate between ${ratioText(bounds.lower.successes, bounds.lower.n)} and ${ratioText(bounds.upper.successes, bounds.upper.n)}` : ""}`,
              "Successes",
            ]}
          />
          <Bar dataKey="share" name="Success rate" fill={COLORS[0]} isAnimationActive={false}>
            <ErrorBar dataKey="range" width={12} strokeWidth={2} stroke="var(--foreground)" direction="y" />
          </Bar>
        </BarChart>
      );
    }
  }
}

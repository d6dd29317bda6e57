"use client";

import {
  Bar,
  BarChart,
  CartesianGrid,
  ErrorBar,
  Legend,
  Line,
  LineChart,
  ReferenceArea,
  ResponsiveContainer,
  Scatter,
  ScatterChart,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { AXIS, TOOLTIP, WHISKER, barShape } from "@/components/ui/chart-parts";
import { CONDITION_LABELS, POLICY_LABELS } from "@/lib/format/replay-labels";
import { whiskerOffsets, wilsonWhisker } from "@/lib/statistics/whiskers";
import { intervalWords, wilsonInterval } from "@/lib/statistics/wilson";
import { chartHeight } from "./chart-height";
import { coincidentSeries, type ChartSpec } from "./chart-specs";

// Recharts draws in the browser only (STACK.md), and this module is loaded only when a chart scrolls
// into view (lazy-chart.tsx): the page's first load carries none of it. Colours are the theme's
// chart tokens; lines differ by dash and marker as well as colour. Wherever a rate is drawn, its 95%
// Wilson interval is drawn with it as whiskers (lib/statistics/whiskers.ts).

const COLORS = ["var(--chart-1)", "var(--chart-2)", "var(--chart-3)", "var(--chart-4)", "var(--chart-5)", "var(--chart-6)"];
const DASHES = ["", "6 3", "2 2", "8 3 2 3", "1 3", "10 4"];
const rate = (n: number, of: number) => (of === 0 ? 0 : n / of);
const pct = (v: number) => `${Math.round(v * 100)}%`;
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
/** "n/N (x%), 95% Wilson a–b": the tooltip of a drawn rate names its whisker. */
const ratioWithInterval = (n: number, of: number) => `${ratioText(n, of)}, ${intervalWords(wilsonInterval(n, of))}`;

export default function ExperimentChart({ spec }: { spec: ChartSpec }) {
  return (
    <ResponsiveContainer width="100%" height={chartHeight(spec)}>
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
        const point: Record<string, number | string | [number, number]> = { delay: `${delayMs} ms` };
        for (const s of series) {
          const r = spec.rows.find((x) => x.policy === s.policies[0] && x.delayMs === delayMs);
          if (r) {
            point[s.label] = rate(r.disagreements, r.trials);
            point[`${s.label} interval`] = wilsonWhisker(r.disagreements, r.trials);
          }
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
                return r ? `${POLICY_LABELS[p]} ${ratioWithInterval(r.disagreements, r.trials)}` : "";
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
            >
              <ErrorBar dataKey={`${s.label} interval`} direction="y" {...WHISKER} stroke={COLORS[i % COLORS.length]} />
            </Line>
          ))}
        </LineChart>
      );
    }
    case "successes": {
      const data = spec.finality.map((f) => ({
        policy: POLICY_LABELS[f.policy],
        share: rate(f.successes, f.trials),
        interval: wilsonWhisker(f.successes, f.trials),
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
              ratioWithInterval(item.payload?.n ?? 0, item.payload?.of ?? 0),
              "Recorded successes",
            ]}
          />
          <Bar dataKey="share" name="Recorded successes" fill={COLORS[0]} shape={barShape} isAnimationActive={false}>
            <ErrorBar dataKey="interval" direction="y" {...WHISKER} />
          </Bar>
        </BarChart>
      );
    }
    case "exposure": {
      const data = spec.separation.map((s) => ({
        condition: CONDITION_LABELS[s.condition],
        share: rate(s.exposures, s.pairs),
        interval: wilsonWhisker(s.exposures, s.pairs),
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
              ratioWithInterval(item.payload?.n ?? 0, item.payload?.of ?? 0),
              "Exposures",
            ]}
          />
          <Bar dataKey="share" name="Exposures" fill={COLORS[1]} shape={barShape} isAnimationActive={false}>
            <ErrorBar dataKey="interval" direction="y" {...WHISKER} />
          </Bar>
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
      // Bars are rates with their Wilson whiskers; the bounds of the true rate over all runs are not an
      // interval around either bar, so they are their own labelled band across the chart.
      const data = [
        { measure: "Reported (all runs)", n: reported.successes, of: reported.n },
        { measure: "Final only (final runs)", n: final.successes, of: final.n },
      ].map((d) => ({ ...d, share: rate(d.n, d.of), interval: wilsonWhisker(d.n, d.of) }));
      return (
        <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 4 }} accessibilityLayer={false}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--chart-grid)" />
          <XAxis dataKey="measure" interval={0} tick={<WrappedTick />} height={wrappedHeight(data.map((d) => d.measure))} />
          <YAxis domain={[0, 1]} tickFormatter={pct} tick={AXIS} width={44} />
          <ReferenceArea
            y1={lower}
            y2={Math.max(upper, lower + 0.004)}
            fill="var(--chart-3)"
            fillOpacity={0.18}
            stroke="var(--chart-3)"
            strokeDasharray="4 3"
            ifOverflow="extendDomain"
            label={{
              value: `True rate over all runs: ${pct(lower)}–${pct(upper)} (bounds)`,
              // Centred, between the two (narrow) bars: the label never lies on a bar.
              position: "insideTop",
              fill: "var(--foreground)",
              fontSize: 11,
            }}
          />
          <Tooltip
            {...TOOLTIP}
            formatter={(_v: unknown, _n: unknown, item: { payload?: { n: number; of: number } }) => [
              `${ratioWithInterval(item.payload?.n ?? 0, item.payload?.of ?? 0)}; true rate between ${ratioText(bounds.lower.successes, bounds.lower.n)} and ${ratioText(bounds.upper.successes, bounds.upper.n)}`,
              "Successes",
            ]}
          />
          <Bar
            dataKey="share"
            name="Success rate"
            fill={COLORS[0]}
            fillOpacity={0.85}
            maxBarSize={96}
            shape={barShape}
            isAnimationActive={false}
          >
            <ErrorBar dataKey="interval" direction="y" {...WHISKER} />
          </Bar>
        </BarChart>
      );
    }
    case "comparison":
      return <ComparisonPlot evaluations={spec.evaluations} />;
  }
}

type Compared = Extract<ChartSpec, { kind: "comparison" }>["evaluations"][number];

/**
 * One row per evaluation (the first at the top): the reported and final-only rates as dots with their
 * Wilson whiskers, over the justified range (dark band) inside its interval (light band).
 */
function ComparisonPlot({ evaluations }: { evaluations: Compared[] }) {
  const points = (key: "reported" | "finalOnly", offset: number) =>
    evaluations.flatMap((e, i) => {
      const figure = e[key];
      if (figure.rate === null) return [];
      return [
        {
          y: i + offset,
          rate: figure.rate,
          interval: whiskerOffsets(figure.rate, figure.wilson95),
          n: figure.n,
          of: figure.N,
          name: e.name,
        },
      ];
    });
  const label = (name: string) => (name.length > 28 ? `${name.slice(0, 27)}…` : name);
  return (
    <ScatterChart margin={{ top: 8, right: 24, bottom: 8, left: 8 }} accessibilityLayer={false}>
      <CartesianGrid strokeDasharray="3 3" stroke="var(--chart-grid)" horizontal={false} />
      <XAxis type="number" dataKey="rate" domain={[0, 1]} tickFormatter={pct} tick={AXIS} name="Success rate" />
      <YAxis
        type="number"
        dataKey="y"
        domain={[-0.5, evaluations.length - 0.5]}
        ticks={evaluations.map((_, i) => i)}
        tickFormatter={(i: number) => label(evaluations[i]?.name ?? "")}
        reversed
        tick={AXIS}
        width={190}
      />
      {evaluations.flatMap((e, i) => {
        const range = e.justifiedRange;
        const lower = range.lower.N === 0 ? null : range.lower.n / range.lower.N;
        const upper = range.upper.N === 0 ? null : range.upper.n / range.upper.N;
        return [
          range.wilson95 ? (
            <ReferenceArea
              key={`${e.id}-interval`}
              x1={range.wilson95[0]}
              x2={range.wilson95[1]}
              y1={i - 0.36}
              y2={i + 0.36}
              fill="var(--chart-3)"
              fillOpacity={0.12}
            />
          ) : null,
          lower !== null && upper !== null ? (
            <ReferenceArea
              key={`${e.id}-range`}
              x1={lower}
              x2={Math.max(upper, lower + 0.004)}
              y1={i - 0.3}
              y2={i + 0.3}
              fill="var(--chart-3)"
              fillOpacity={0.3}
              stroke="var(--chart-3)"
            />
          ) : null,
        ];
      })}
      <Tooltip
        {...TOOLTIP}
        cursor={false}
        formatter={(_v: unknown, name: unknown, item: { payload?: { n: number; of: number; name: string } }) => [
          `${item.payload?.name}: ${ratioWithInterval(item.payload?.n ?? 0, item.payload?.of ?? 0)}`,
          String(name),
        ]}
      />
      {/* In the table's order (reported, then final-only), not alphabetical. */}
      <Legend {...LEGEND} itemSorter={null} />
      <Scatter name="Reported (endpoint)" data={points("reported", -0.12)} fill={COLORS[0]} shape="circle" isAnimationActive={false}>
        <ErrorBar dataKey="interval" direction="x" {...WHISKER} stroke={COLORS[0]} />
      </Scatter>
      <Scatter name="Final-only" data={points("finalOnly", 0.12)} fill={COLORS[1]} shape="diamond" isAnimationActive={false}>
        <ErrorBar dataKey="interval" direction="x" {...WHISKER} stroke={COLORS[1]} />
      </Scatter>
    </ScatterChart>
  );
}

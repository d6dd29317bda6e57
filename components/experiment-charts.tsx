"use client";

import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { FinalityDelayRow } from "@/lib/dashboard/experiment-aggregates";
import { CONDITION_LABELS, POLICY_LABELS } from "@/lib/replay/display";
import type { ReplaySummary } from "@/lib/replay/summary-schema";

// Recharts draws on the client only (STACK.md); every chart has a caption saying what it counts and
// a text alternative with its n/N figures, and the same numbers are in the tables on the page.

const COLORS = ["#0645ad", "#b00020", "#0a6b2d", "#8a4b00", "#5b2a86", "#00707a"];
const DASHES = ["", "6 3", "2 2", "8 3 2 3", "1 3", "10 4"];
const rate = (n: number, of: number) => (of === 0 ? 0 : n / of);
const pct = (v: number) => `${Math.round(v * 100)}%`;

function Figure({ title, description, children }: { title: string; description: string; children: React.ReactNode }) {
  return (
    <figure className="chart">
      <div role="img" aria-label={`${title}. ${description}`} className="chart-canvas">
        <ResponsiveContainer width="100%" height={260}>
          {children as React.ReactElement}
        </ResponsiveContainer>
      </div>
      <figcaption>
        <strong>{title}.</strong> {description}
      </figcaption>
    </figure>
  );
}

/** Tooltip rows as "n/N (x%)": a rate never without its denominator. */
function ratioTooltip(counts: Record<string, { n: number; of: number }>) {
  return (_value: unknown, name: unknown) => {
    const c = counts[String(name)];
    return c ? [`${c.n}/${c.of} (${pct(rate(c.n, c.of))})`, String(name)] : ["", String(name)];
  };
}

export function DisagreementByDelayChart({ rows }: { rows: FinalityDelayRow[] }) {
  const policies = [...new Set(rows.map((r) => r.policy))];
  const delays = [...new Set(rows.map((r) => r.delayMs))].sort((a, b) => a - b);
  const data = delays.map((delayMs) => {
    const point: Record<string, number | string> = { delay: `${delayMs} ms` };
    for (const p of policies) {
      const r = rows.find((x) => x.policy === p && x.delayMs === delayMs);
      if (r) point[POLICY_LABELS[p]] = rate(r.disagreements, r.trials);
    }
    return point;
  });
  const description = rows.map((r) => `${POLICY_LABELS[r.policy]} at ${r.delayMs} ms: ${r.disagreements}/${r.trials}`).join("; ");
  return (
    <Figure title="Endpoint-versus-terminal disagreement by nominal delay, per finality policy" description={`Share of a policy's trials at that delay whose endpoint label differs from the terminal label. ${description}.`}>
      <LineChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
        <CartesianGrid strokeDasharray="3 3" />
        <XAxis dataKey="delay" />
        <YAxis domain={[0, 1]} tickFormatter={pct} />
        <Tooltip
          formatter={(value: unknown, name: unknown, item: { payload?: Record<string, unknown> }) => {
            const r = rows.find((x) => POLICY_LABELS[x.policy] === name && `${x.delayMs} ms` === item.payload?.delay);
            return r ? [`${r.disagreements}/${r.trials}`, String(name)] : [String(value), String(name)];
          }}
        />
        <Legend />
        {policies.map((p, i) => (
          <Line key={p} dataKey={POLICY_LABELS[p]} stroke={COLORS[i % COLORS.length]} strokeDasharray={DASHES[i % DASHES.length]} strokeWidth={2} isAnimationActive={false} />
        ))}
      </LineChart>
    </Figure>
  );
}

export function SuccessesByPolicyChart({ finality }: { finality: ReplaySummary["finality"] }) {
  const data = finality.map((f) => ({ policy: POLICY_LABELS[f.policy], "Recorded successes": rate(f.successes, f.trials) }));
  const counts = Object.fromEntries(finality.map((f) => [POLICY_LABELS[f.policy], { n: f.successes, of: f.trials }]));
  return (
    <Figure
      title="Recorded successes per finality policy, against the synchronous controls"
      description={`Share of each policy's trials recorded as success. ${finality.map((f) => `${POLICY_LABELS[f.policy]}: ${f.successes}/${f.trials}`).join("; ")}.`}
    >
      <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
        <CartesianGrid strokeDasharray="3 3" />
        <XAxis dataKey="policy" interval={0} tick={{ fontSize: 11 }} />
        <YAxis domain={[0, 1]} tickFormatter={pct} />
        <Tooltip formatter={(_v: unknown, _n: unknown, item: { payload?: { policy?: string } }) => ratioTooltip(counts)(0, item.payload?.policy)} />
        <Bar dataKey="Recorded successes" fill={COLORS[0]} isAnimationActive={false} />
      </BarChart>
    </Figure>
  );
}

export function ExposureByConditionChart({ separation }: { separation: ReplaySummary["separation"] }) {
  const data = separation.map((s) => ({ condition: CONDITION_LABELS[s.condition], Exposures: rate(s.exposures, s.pairs) }));
  const counts = Object.fromEntries(separation.map((s) => [CONDITION_LABELS[s.condition], { n: s.exposures, of: s.pairs }]));
  return (
    <Figure
      title="Cross-run exposure per separation condition"
      description={`Share of each condition's A/B pairs where A's write changed the value scored in B. ${separation.map((s) => `${CONDITION_LABELS[s.condition]}: ${s.exposures}/${s.pairs}`).join("; ")}.`}
    >
      <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
        <CartesianGrid strokeDasharray="3 3" />
        <XAxis dataKey="condition" interval={0} tick={{ fontSize: 11 }} />
        <YAxis domain={[0, 1]} tickFormatter={pct} />
        <Tooltip formatter={(_v: unknown, _n: unknown, item: { payload?: { condition?: string } }) => ratioTooltip(counts)(0, item.payload?.condition)} />
        <Bar dataKey="Exposures" fill={COLORS[1]} isAnimationActive={false} />
      </BarChart>
    </Figure>
  );
}

export function AnalysisUnitsChart({ separation }: { separation: ReplaySummary["separation"] }) {
  const data = separation.map((s) => ({ condition: CONDITION_LABELS[s.condition], "Run rows": s.runRows, "Analysis units": s.analysisUnits }));
  return (
    <Figure
      title="Analysis units: run rows against the units an analysis may count as separate"
      description={`Grouped analysis counts each connected pair once. ${separation.map((s) => `${CONDITION_LABELS[s.condition]}: ${s.runRows} run rows, ${s.analysisUnits} units`).join("; ")}.`}
    >
      <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
        <CartesianGrid strokeDasharray="3 3" />
        <XAxis dataKey="condition" interval={0} tick={{ fontSize: 11 }} />
        <YAxis allowDecimals={false} />
        <Tooltip />
        <Legend />
        <Bar dataKey="Run rows" fill={COLORS[0]} isAnimationActive={false} />
        <Bar dataKey="Analysis units" fill={COLORS[2]} isAnimationActive={false} />
      </BarChart>
    </Figure>
  );
}

export function MeasuredDelayChart({ delays }: { delays: ReplaySummary["delays"] }) {
  const data = delays.map((d) => ({ nominal: `${d.nominalMs} ms`, Nominal: d.nominalMs, "Median measured": d.medianMs, "p99 measured": d.p99Ms }));
  return (
    <Figure
      title="Measured delay per nominal delay (median and p99)"
      description={`Time from acknowledgement to application of each applied write, in ms. ${delays.map((d) => `${d.nominalMs} ms: median ${d.medianMs.toFixed(3)}, p99 ${d.p99Ms.toFixed(3)} (n=${d.n})`).join("; ")}.`}
    >
      <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
        <CartesianGrid strokeDasharray="3 3" />
        <XAxis dataKey="nominal" />
        <YAxis unit=" ms" />
        <Tooltip formatter={(v: unknown, name: unknown) => [`${Number(v).toFixed(3)} ms`, String(name)]} />
        <Legend />
        <Bar dataKey="Nominal" fill="#999" isAnimationActive={false} />
        <Bar dataKey="Median measured" fill={COLORS[0]} isAnimationActive={false} />
        <Bar dataKey="p99 measured" fill={COLORS[3]} isAnimationActive={false} />
      </BarChart>
    </Figure>
  );
}

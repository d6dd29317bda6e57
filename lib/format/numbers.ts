import type { ReplaySummary, TraceResults } from "../replay/rules/summary-schema";

/** "n/N": a rate is never shown without its denominator. */
export const ratio = (n: number, of: number) => `${n}/${of}`;

/** The percentage shown beside its n/N (a dash when there is nothing to divide by). */
export const percent = (n: number, of: number) => (of === 0 ? "—" : `${((100 * n) / of).toFixed(n === of || n === 0 ? 0 : 1)}%`);

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** The paper's Table 2 as plain text, with every figure as numerator/denominator. */
export function formatTable2(summary: ReplaySummary): string {
  const finality = table(
    ["finality policy", "recorded successes", "at nonzero delay", "disagreements (endpoint != terminal)", "at nonzero delay"],
    summary.finality.map((f) => [
      f.policy,
      ratio(f.successes, f.trials),
      ratio(f.successesNonzeroDelay, f.trialsNonzeroDelay),
      ratio(f.disagreements, f.trials),
      ratio(f.disagreementsNonzeroDelay, f.trialsNonzeroDelay),
    ]),
  );
  const separation = table(
    ["separation condition", "exposures (pairs)", "run rows", "analysis units", "B's mean score"],
    summary.separation.map((s) => [
      s.condition,
      ratio(s.exposures, s.pairs),
      String(s.runRows),
      String(s.analysisUnits),
      s.meanScoreB === null ? "n/a" : s.meanScoreB.toFixed(2),
    ]),
  );
  const delays = table(
    ["nominal delay", "median measured", "p99 measured", "n"],
    summary.delays.map((d) => [`${d.nominalMs} ms`, `${d.medianMs.toFixed(2)} ms`, `${d.p99Ms.toFixed(2)} ms`, String(d.n)]),
  );
  const total = Object.values(summary.classifications).reduce((a, b) => a + b, 0);
  const accounting = table(
    ["run classification", "runs"],
    Object.entries(summary.classifications).map(([name, n]) => [name, ratio(n, total)]),
  );
  const checks = table(
    ["implementation check", "result", "evidence"],
    summary.checks.map((c) => [c.name, c.passed ? "pass" : "FAIL", c.evidence]),
  );
  const passed = summary.checks.filter((c) => c.passed).length;
  return [
    `Experiment ${summary.experimentId}: ${summary.config.schedules} schedules x delays {${summary.config.delaysMs.join(", ")}} ms x ${summary.config.repetitions} repetitions, ${(summary.wallMs / 1000).toFixed(1)} s`,
    "",
    finality,
    "",
    separation,
    "",
    delays,
    "",
    accounting,
    "",
    checks,
    "",
    `implementation checks: ${ratio(passed, summary.checks.length)} passed`,
  ].join("\n");
}

/** Per trace and per suite, as plain text: how often a snapshot scorer mislabels each real task at each delay. */
export function formatTraceResults(results: TraceResults): string {
  const delays = [...new Set(results.suites.map((s) => s.delayMs))].sort((a, b) => a - b);
  const perTrace = table(
    ["trace", "writes", ...delays.map((d) => `snapshot mislabelled @${d} ms`), "shared-state exposures"],
    results.traces.map((t) => {
      const snap = t.finality.filter((f) => f.policy === "snapshot");
      const shared = t.separation.filter((s) => s.condition === "shared");
      return [
        t.taskId,
        String(t.writes),
        ...delays.map((d) => {
          const cell = snap.find((f) => f.delayMs === d);
          return cell ? ratio(cell.disagreements, cell.trials) : "n/a";
        }),
        shared.length
          ? ratio(
              shared.reduce((s, c) => s + c.exposures, 0),
              shared.reduce((s, c) => s + c.pairs, 0),
            )
          : "n/a",
      ];
    }),
  );
  const perSuite = table(
    ["suite", "delay", "tasks a snapshot scorer mislabels", "trials mislabelled"],
    results.suites.map((s) => [s.suite, `${s.delayMs} ms`, ratio(s.tasksMislabelled, s.tasks), ratio(s.mislabelled, s.trials)]),
  );
  return [perTrace, "", perSuite].join("\n");
}

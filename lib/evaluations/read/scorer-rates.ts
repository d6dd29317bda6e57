// Every scorer's rate beside the labelling one: a harness may score a run with several scorers (Inspect's
// `scores`), one of which labels it. Each scorer's successes are counted in SQL over the values kept with
// the runs (scorer_values, read by score_as_number against each run's threshold); its metrics are the ones
// the harness computed itself for each log (evaluation_harness_metrics). Pure assembly here, SQL counts.
import { DEFAULT_SCORE_THRESHOLD } from "../vocabulary";
import { z } from "zod";
import type { SqlClient } from "../../db/sql-transaction";
import { onlyRowOf } from "../../db/rows";
import type { HarnessMetric } from "../harness-metrics";
import type { EvaluationSummary } from "./read-boundary";

export type ScorerRate = EvaluationSummary["scorers"][number];

/** The labelling scorer of one log (its runs' endpoint labels come from that scorer's values). */
export interface LabellingScorer {
  source: string;
  scorer: string;
}

/** Stores which scorer labelled each log, replacing what an earlier import of the same log stored. */
export async function storeLabellingScorers(db: SqlClient, evaluationId: string, scorers: readonly LabellingScorer[]): Promise<void> {
  if (scorers.length === 0) return;
  await db.$executeRaw`
    INSERT INTO evaluation_labelling_scorers (evaluation_id, source, scorer)
    SELECT ${evaluationId}::uuid, x.source, x.scorer
      FROM unnest(${scorers.map((s) => s.source)}::text[], ${scorers.map((s) => s.scorer)}::text[]) AS x(source, scorer)
    ON CONFLICT (evaluation_id, source) DO UPDATE SET scorer = EXCLUDED.scorer, recorded_at = now()`;
}

const int = z.coerce.number().int();
/** One scorer's counts over the runs that hold a value of it. */
export interface ScorerCounts {
  name: string;
  runs: number;
  readable: number;
  successes: number;
}
const countRow = z.object({ name: z.string(), runs: int, readable: int, successes: int });
const labellingRow = z.object({ source: z.string(), scorer: z.string() });

const metricRow = z.object({ source: z.string(), scorer: z.string(), metric: z.string(), value: z.number() });
const figuresRow = z.object({ counts: z.array(countRow), metrics: z.array(metricRow), labelling: z.array(labellingRow) });

/** The figures the summary's `scorers` is made of, read under the caller's transaction: one round trip. */
export async function readScorerFigures(
  db: SqlClient,
  evaluationId: string,
): Promise<{ counts: ScorerCounts[]; metrics: HarnessMetric[]; labelling: LabellingScorer[] }> {
  return onlyRowOf(
    figuresRow,
    await db.$queryRaw`
      SELECT (SELECT coalesce(json_agg(c), '[]') FROM (
                -- Through the partial index of runs with scorer values (migration scorer_rates): nothing for an evaluation without any.
                SELECT s.name, count(*) AS runs, count(score_as_number(s.value)) AS readable,
                       count(*) FILTER (WHERE score_as_number(s.value) >= coalesce(r.threshold, ${DEFAULT_SCORE_THRESHOLD}::float8)) AS successes
                  FROM evaluation_runs r CROSS JOIN LATERAL jsonb_each(r.scorer_values) AS s(name, value)
                 WHERE r.evaluation_id = ${evaluationId}::uuid AND r.scorer_values IS NOT NULL
                 GROUP BY s.name) c) AS counts,
             (SELECT coalesce(json_agg(m), '[]') FROM (
                SELECT source, scorer, metric, value FROM evaluation_harness_metrics WHERE evaluation_id = ${evaluationId}::uuid) m) AS metrics,
             (SELECT coalesce(json_agg(l), '[]') FROM (
                SELECT source, scorer FROM evaluation_labelling_scorers WHERE evaluation_id = ${evaluationId}::uuid) l) AS labelling`,
  );
}

/**
 * Every scorer the runs hold a value of, or the harness reported figures for: its successes of the runs
 * whose value reads as a number (at or above the run's threshold), the runs whose value does not, whether
 * it labelled any log's runs, and its metrics as the harness computed them, by log (`metrics` is the one
 * log's when a single log reported them: two logs' accuracies are not one accuracy). The labelling scorers
 * first, then by name.
 */
export function scorerRates(
  counts: readonly ScorerCounts[],
  metrics: readonly HarnessMetric[],
  labelling: readonly LabellingScorer[],
): ScorerRate[] {
  const labellers = new Set(labelling.map((l) => l.scorer));
  const byLog = new Map<string, Map<string, Record<string, number>>>();
  for (const m of metrics) {
    const logs = byLog.get(m.scorer) ?? new Map<string, Record<string, number>>();
    logs.set(m.source, { ...logs.get(m.source), [m.metric]: m.value });
    byLog.set(m.scorer, logs);
  }
  const countsOf = new Map(counts.map((c) => [c.name, c]));
  const names = [...new Set([...countsOf.keys(), ...byLog.keys()])];
  return names
    .map((name) => {
      const c = countsOf.get(name);
      const logs = [...(byLog.get(name) ?? new Map<string, Record<string, number>>())]
        .map(([source, values]) => ({ source, metrics: values }))
        .sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
      return {
        name,
        labelling: labellers.has(name),
        successes: c?.successes ?? 0,
        n: c?.readable ?? 0,
        unreadable: (c?.runs ?? 0) - (c?.readable ?? 0),
        metrics: logs.length === 1 ? logs[0]!.metrics : null,
        metricsByLog: logs,
      };
    })
    .sort((a, b) => Number(b.labelling) - Number(a.labelling) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

// The headline figures of an evaluation (docs/evaluations.md, The figures), each an SQL aggregate over the audit stored
// on its runs (counted by triggers into evaluation_run_counts): never rows pulled into JavaScript to count.
import { z } from "zod";
import type { SqlClient } from "../../db/sql-transaction";
import { notFound } from "../../errors";
import { ATTACK_LABEL, labelOutcomeFigures } from "./attack-success";
import { readScorerFigures, scorerRates } from "./scorer-rates";
import { trueRateBounds } from "../finality";
import { underOneAppliedVersion } from "./under-one-applied-version";
import type { EvaluationSummary } from "./read-boundary";
import { HARNESS_DESIGNS, isHarnessDesign, type HarnessDesign } from "../harness-design";
import { FINALITY_BASES, UNRESOLVED_REASONS } from "../vocabulary";

const int = z.coerce.number().int();
const totals = z.object({
  version: int,
  pending_version: int.nullable(),
  runs_done: int.nullable(),
  runs_total: int.nullable(),
  requested_at: z.date().nullable(),
  runs: int,
  unscored: int,
  reported_successes: int,
  final_n: int,
  final_successes: int,
  unresolved: int,
  disagreements: int,
  with_terminal: int,
  units: int,
  internal: int,
  public: int,
  unresolved_rows: z.array(z.object({ reason: z.enum(UNRESOLVED_REASONS), tool: z.string(), n: int })),
  largest_unit: int.nullable(),
  basis_rows: z.array(z.object({ basis: z.enum(FINALITY_BASES).nullable(), design: z.string(), n: int })),
  tokens_input: z.number(),
  tokens_output: z.number(),
  runs_with_tokens: int,
  model_calls: int,
  runs_with_model_calls: int,
});
const totalsRows = z.array(totals);
const labelRowsSchema = z.array(
  z.object({
    name: z.string(),
    reason: z.enum(UNRESOLVED_REASONS).nullable(),
    runs: int,
    succeeded: int,
    final: int,
    final_succeeded: int,
    unresolved: int,
  }),
);

/** The summary of one evaluation, every figure under one applied policy version; throws notFound for an unknown id. */
export async function evaluationSummary(db: SqlClient, evaluationId: string): Promise<EvaluationSummary> {
  return underOneAppliedVersion(db, evaluationId, () => readEvaluationSummary(db, evaluationId));
}

/** The summary without a version check of its own: for a caller whose whole read is under underOneAppliedVersion already. */
export async function readEvaluationSummary(db: SqlClient, evaluationId: string): Promise<EvaluationSummary> {
  const [rows, labelRows, scorerFigures] = await Promise.all([
    // From the trigger-maintained counts (migration evaluation_run_counts), not a scan of every run. One round trip for the
    // small reads: the counts, the unresolved runs by reason and tool, the largest unit, the bases and designs, the model calls'.
    db.$queryRaw`
      SELECT e.effect_policy_version AS version, e.pending_policy_version AS pending_version, r.runs_done, r.runs_total, r.requested_at, counts.*,
             (SELECT coalesce(json_agg(x), '[]') FROM (
                SELECT unresolved_reason AS reason, unresolved_tool AS tool, sum(n) AS n FROM evaluation_run_counts
                 WHERE evaluation_id = ${evaluationId}::uuid AND finality = 'unresolved' GROUP BY 1, 2 HAVING sum(n) > 0) x) AS unresolved_rows,
             (SELECT runs FROM evaluation_units WHERE evaluation_id = ${evaluationId}::uuid ORDER BY runs DESC LIMIT 1) AS largest_unit,
             (SELECT coalesce(json_agg(x), '[]') FROM (
                SELECT nullif(finality_basis, '') AS basis, harness_design AS design, sum(n) AS n FROM evaluation_run_counts
                 WHERE evaluation_id = ${evaluationId}::uuid GROUP BY 1, 2 HAVING sum(n) > 0) x) AS basis_rows,
             tokens.*
        FROM evaluations e
        LEFT JOIN evaluation_policy_recomputes r ON r.evaluation_id = e.id AND r.version = e.pending_policy_version
       CROSS JOIN LATERAL (
          SELECT coalesce(sum(n), 0) AS runs,
                 coalesce(sum(n) FILTER (WHERE finality = 'unscored'), 0) AS unscored,
                 coalesce(sum(n) FILTER (WHERE endpoint_label = 'success'), 0) AS reported_successes,
                 coalesce(sum(n) FILTER (WHERE finality = 'final'), 0) AS final_n,
                 coalesce(sum(n) FILTER (WHERE finality = 'final' AND endpoint_label = 'success'), 0) AS final_successes,
                 coalesce(sum(n) FILTER (WHERE finality = 'unresolved'), 0) AS unresolved,
                 coalesce(sum(n) FILTER (WHERE disagreement), 0) AS disagreements,
                 coalesce(sum(n) FILTER (WHERE has_terminal), 0) AS with_terminal,
                 coalesce(sum(n) FILTER (WHERE is_unit), 0) AS units,
                 coalesce(sum(n) FILTER (WHERE inherited_state = 'internal'), 0) AS internal,
                 coalesce(sum(n) FILTER (WHERE inherited_state = 'public'), 0) AS public
            FROM evaluation_run_counts c WHERE c.evaluation_id = e.id) AS counts
       -- The runs' model-call sums (kept on each run's row at write time), through the partial index of runs with model
       -- calls (migration model_calls): nothing for an evaluation without any, never the calls themselves.
       CROSS JOIN LATERAL (
          SELECT coalesce(sum(input_tokens), 0)::float8 AS tokens_input, coalesce(sum(output_tokens), 0)::float8 AS tokens_output,
                 count(*) FILTER (WHERE input_tokens IS NOT NULL OR output_tokens IS NOT NULL) AS runs_with_tokens,
                 coalesce(sum(model_calls), 0) AS model_calls, count(*) AS runs_with_model_calls
            FROM evaluation_runs
           WHERE evaluation_id = ${evaluationId}::uuid AND model_calls IS NOT NULL) AS tokens
       WHERE e.id = ${evaluationId}::uuid`,
    // The scored runs' labels beside the endpoint label (`security`: the runs under attack), one row per label and unresolved reason
    // (NULL: the runs that are not unresolved). Not in evaluation_run_counts: read from the labelled runs themselves, through the
    // partial index of runs with labels (migration run_pipeline_injection_task): nothing for an evaluation without any.
    db.$queryRaw`
      SELECT l.key AS name, r.unresolved_reason AS reason, count(*) AS runs,
             count(*) FILTER (WHERE l.value = 'success') AS succeeded,
             count(*) FILTER (WHERE r.finality = 'final') AS final,
             count(*) FILTER (WHERE r.finality = 'final' AND l.value = 'success') AS final_succeeded,
             count(*) FILTER (WHERE r.finality = 'unresolved') AS unresolved
        FROM evaluation_runs r CROSS JOIN LATERAL jsonb_each_text(r.labels) AS l
       WHERE r.evaluation_id = ${evaluationId}::uuid AND r.labels IS NOT NULL AND r.finality <> 'unscored'
       GROUP BY 1, 2`,
    readScorerFigures(db, evaluationId),
  ]);
  const t = totalsRows.parse(rows)[0];
  if (!t) throw notFound("evaluation");
  const { unresolved_rows: unresolvedRows, largest_unit: largestUnit, basis_rows: basisRows } = t;
  const byReason: EvaluationSummary["unresolved"]["byReason"] = {};
  const byTool: Record<string, number> = {};
  for (const row of unresolvedRows) {
    byReason[row.reason] = (byReason[row.reason] ?? 0) + row.n;
    byTool[row.tool] = (byTool[row.tool] ?? 0) + row.n;
  }
  const largest = largestUnit ?? (t.runs > 0 ? 1 : 0);
  const finalBasis: EvaluationSummary["finalBasis"] = {};
  const designRuns = new Map<HarnessDesign, number>();
  for (const row of basisRows) {
    if (row.basis !== null) finalBasis[row.basis] = (finalBasis[row.basis] ?? 0) + row.n;
    if (isHarnessDesign(row.design)) designRuns.set(row.design, (designRuns.get(row.design) ?? 0) + row.n);
  }
  const labelled = labelRowsSchema.parse(labelRows);
  const outcomes: EvaluationSummary["outcomes"] = {};
  for (const name of [...new Set(labelled.map((row) => row.name))].sort()) {
    const rowsOf = labelled.filter((row) => row.name === name);
    const sum = (key: "runs" | "succeeded" | "final" | "final_succeeded") => rowsOf.reduce((total, row) => total + row[key], 0);
    outcomes[name] = labelOutcomeFigures({
      runs: sum("runs"),
      succeeded: sum("succeeded"),
      final: sum("final"),
      finalSucceeded: sum("final_succeeded"),
      unresolvedByReason: rowsOf.flatMap(({ reason, unresolved }) =>
        reason !== null && unresolved > 0 ? [{ reason, n: unresolved }] : [],
      ),
    });
  }
  const attackSuccess =
    outcomes[ATTACK_LABEL] ?? labelOutcomeFigures({ runs: 0, succeeded: 0, final: 0, finalSucceeded: 0, unresolvedByReason: [] });
  // Unscored runs have no label: every rate's population is the scored runs; they are counted on their own.
  const scored = t.runs - t.unscored;
  return {
    evaluationId,
    effectPolicyVersion: t.version,
    pendingPolicy:
      t.pending_version === null
        ? null
        : {
            version: t.pending_version,
            runsDone: t.runs_done ?? 0,
            runsTotal: t.runs_total ?? 0,
            requestedAt: t.requested_at!.toISOString(),
          },
    runs: t.runs,
    unscored: t.unscored,
    reported: { successes: t.reported_successes, n: scored },
    final: { successes: t.final_successes, n: t.final_n },
    unresolved: { n: t.unresolved, byReason, byTool },
    disagreements: { n: t.disagreements, of: t.with_terminal },
    bounds: trueRateBounds({ runs: scored, finalSuccesses: t.final_successes, unresolved: t.unresolved }),
    units: { runRows: t.runs, analysisUnits: t.units, largest },
    exposures: { n: t.internal + t.public, of: t.runs },
    inheritedState: { none: t.runs - t.internal - t.public, internal: t.internal, public: t.public },
    finalBasis,
    harnessDesigns: [...designRuns].map(([design, runs]) => ({ design, ...HARNESS_DESIGNS[design], runs })),
    attackSuccess,
    outcomes,
    scorers: scorerRates(scorerFigures.counts, scorerFigures.metrics, scorerFigures.labelling),
    tokens: {
      input: t.tokens_input,
      output: t.tokens_output,
      runsWithTokens: t.runs_with_tokens,
      modelCalls: t.model_calls,
      runsWithModelCalls: t.runs_with_model_calls,
      runs: t.runs,
    },
  };
}

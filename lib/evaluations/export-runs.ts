// An evaluation's runs as a download (issue 26): one row per run with its audit and its analysis
// unit, in stored order, read in keyset batches so that memory holds one batch whatever the size.
import { z } from "zod";
import type { Db } from "../db/prisma";
import { rowsOf } from "../db/rows";
import { oneOf } from "../http/pagination";

export const evaluationExportQuerySchema = z.strictObject({ format: oneOf("format", ["csv", "json"]).default("csv") });

const exportRow = z.object({
  id: z.string(),
  external_id: z.string(),
  task_id: z.string(),
  group_id: z.string().nullable(),
  attempt: z.number().int().nullable(),
  run_class: z.string(),
  run_class_evidence: z.string().nullable(),
  started_at: z.date(),
  scored_at: z.date().nullable(),
  ended_at: z.date().nullable(),
  endpoint_label: z.string().nullable(),
  unscored_reason: z.string().nullable(),
  score: z.number().nullable(),
  threshold: z.number().nullable(),
  terminal_label: z.string().nullable(),
  finality: z.string(),
  unresolved_reason: z.string().nullable(),
  unresolved_effect_id: z.string().nullable(),
  unresolved_tool: z.string().nullable(),
  disagreement: z.boolean(),
  analysis_unit: z.string(),
  analysis_unit_runs: z.number().int(),
  inherited_state: z.string(),
  effects: z.number().int(),
  audit_policy_version: z.number().int(),
});

/** A run as exported: its record's identity and outcome, the audit's labels, and its analysis unit (a run alone is its own unit of 1). */
export interface ExportedRun {
  externalId: string;
  taskId: string;
  groupId: string | null;
  attempt: number | null;
  runClass: string;
  runClassEvidence: string | null;
  startedAt: Date;
  scoredAt: Date | null;
  endedAt: Date | null;
  endpointLabel: string | null;
  unscoredReason: string | null;
  score: number | null;
  threshold: number | null;
  terminalLabel: string | null;
  finality: string;
  unresolvedReason: string | null;
  unresolvedEffectId: string | null;
  unresolvedTool: string | null;
  disagreement: boolean;
  analysisUnit: string;
  analysisUnitRuns: number;
  inheritedState: string;
  effects: number;
  effectPolicyVersion: number;
}

export const EVALUATION_EXPORT_COLUMNS = [
  "externalId",
  "taskId",
  "groupId",
  "attempt",
  "runClass",
  "runClassEvidence",
  "startedAt",
  "scoredAt",
  "endedAt",
  "endpointLabel",
  "unscoredReason",
  "score",
  "threshold",
  "terminalLabel",
  "finality",
  "unresolvedReason",
  "unresolvedEffectId",
  "unresolvedTool",
  "disagreement",
  "analysisUnit",
  "analysisUnitRuns",
  "inheritedState",
  "effects",
  "effectPolicyVersion",
] as const satisfies readonly (keyof ExportedRun)[];

/** Every run of the evaluation, `batchSize` at a time, in stored order. */
export async function* evaluationRunBatches(db: Db, evaluationId: string, batchSize = 1_000): AsyncGenerator<ExportedRun[]> {
  let after = "0";
  for (;;) {
    const rows = rowsOf(
      exportRow,
      await db.$queryRaw`
        SELECT r.id::text, r.external_id, r.task_id, r.group_id, r.attempt, r.run_class, r.run_class_evidence, r.started_at, r.scored_at, r.ended_at,
               r.endpoint_label, r.unscored_reason, r.score, r.threshold, r.terminal_label, r.finality, r.unresolved_reason,
               r.unresolved_effect_id, r.unresolved_tool, r.disagreement, coalesce(r.analysis_unit, r.id)::text AS analysis_unit,
               coalesce(u.runs, 1) AS analysis_unit_runs, r.inherited_state,
               (SELECT count(*)::int FROM evaluation_effects e WHERE e.run_id = r.id) AS effects, r.audit_policy_version
          FROM evaluation_runs r
          LEFT JOIN evaluation_units u ON u.evaluation_id = r.evaluation_id AND u.unit = r.analysis_unit
         WHERE r.evaluation_id = ${evaluationId}::uuid AND r.id > ${after}::bigint
         ORDER BY r.id LIMIT ${batchSize}`,
    );
    if (rows.length > 0)
      yield rows.map((r) => ({
        externalId: r.external_id,
        taskId: r.task_id,
        groupId: r.group_id,
        attempt: r.attempt,
        runClass: r.run_class,
        runClassEvidence: r.run_class_evidence,
        startedAt: r.started_at,
        scoredAt: r.scored_at,
        endedAt: r.ended_at,
        endpointLabel: r.endpoint_label,
        unscoredReason: r.unscored_reason,
        score: r.score,
        threshold: r.threshold,
        terminalLabel: r.terminal_label,
        finality: r.finality,
        unresolvedReason: r.unresolved_reason,
        unresolvedEffectId: r.unresolved_effect_id,
        unresolvedTool: r.unresolved_tool,
        disagreement: r.disagreement,
        analysisUnit: r.analysis_unit,
        analysisUnitRuns: r.analysis_unit_runs,
        inheritedState: r.inherited_state,
        effects: r.effects,
        effectPolicyVersion: r.audit_policy_version,
      }));
    if (rows.length < batchSize) return;
    after = rows.at(-1)!.id;
  }
}

// An evaluation's runs as a download (issue 26): one row per run with its audit and its analysis
// unit, in stored order, read in keyset batches so that memory holds one batch whatever the size.
import { z } from "zod";
import { poolOf, type Db } from "../../db/prisma";
import { Prisma } from "../../generated/prisma/client";
import { rowsOf } from "../../db/rows";
import { oneOf } from "../../http/pagination";
import { timesRecorded } from "./display";

export const evaluationExportQuerySchema = z.strictObject({ format: oneOf("format", ["csv", "json"]).default("csv") });

/**
 * A run as exported: its record's identity and outcome, the audit's labels, and its analysis unit (a run alone is its own unit of 1).
 * Its times are null (an empty CSV cell) when its log recorded none: the importer's stand-in start, the Unix epoch, and the times counted from it are not times.
 */
const exportedRun = z.object({
  externalId: z.string(),
  taskId: z.string(),
  groupId: z.string().nullable(),
  attempt: z.number().int().nullable(),
  runClass: z.string(),
  runClassEvidence: z.string().nullable(),
  startedAt: z.date().nullable(),
  scoredAt: z.date().nullable(),
  endedAt: z.date().nullable(),
  endpointLabel: z.string().nullable(),
  unscoredReason: z.string().nullable(),
  score: z.number().nullable(),
  threshold: z.number().nullable(),
  terminalLabel: z.string().nullable(),
  finality: z.string(),
  unresolvedReason: z.string().nullable(),
  unresolvedEffectId: z.string().nullable(),
  unresolvedTool: z.string().nullable(),
  disagreement: z.boolean(),
  /** Under attack (a `security` label): whether the attack succeeded; null (an empty CSV cell) when the run was not under attack. */
  attackSucceeded: z.boolean().nullable(),
  analysisUnit: z.string(),
  analysisUnitRuns: z.number().int(),
  inheritedState: z.string(),
  effects: z.number().int(),
  /** Its model calls' tokens summed and how many calls it recorded; null (an empty CSV cell) when unknown. */
  inputTokens: z.number().nullable(),
  outputTokens: z.number().nullable(),
  modelCalls: z.number().int().nullable(),
  effectPolicyVersion: z.number().int(),
});
export type ExportedRun = z.infer<typeof exportedRun>;

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
  "attackSucceeded",
  "analysisUnit",
  "analysisUnitRuns",
  "inheritedState",
  "effects",
  "inputTokens",
  "outputTokens",
  "modelCalls",
  "effectPolicyVersion",
] as const satisfies readonly (keyof ExportedRun)[];

/**
 * Every run of the evaluation, `batchSize` at a time, in stored order, all read in one snapshot (a
 * read-only REPEATABLE READ transaction on a connection of its own, held until the last batch or until
 * the consumer stops): a policy version applied while a large evaluation streams out changes none of
 * its rows, so no export mixes two versions (issue 25 item 1), and runs ingested meanwhile are not in it.
 */
export async function* evaluationRunBatches(db: Db, evaluationId: string, batchSize = 1_000): AsyncGenerator<ExportedRun[]> {
  const client = await poolOf(db).connect();
  let broken: Error | undefined;
  let committed = false;
  const onLost = (error: Error) => (broken ??= error);
  client.on("error", onLost);
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    for (let after = "0"; ;) {
      const batch = batchQuery(evaluationId, after, batchSize);
      const rows = rowsOf(exportedRun.extend({ id: z.string() }), (await client.query(batch.text, batch.values as unknown[])).rows);
      if (rows.length > 0) yield rows.map(({ id: _id, ...run }) => withoutStandInTimes(run));
      if (rows.length < batchSize) break;
      after = rows.at(-1)!.id;
    }
    await client.query("COMMIT");
    committed = true;
  } finally {
    // A consumer that stopped early leaves the transaction open: the connection goes back rolled back, or is discarded.
    if (!committed && !broken) await client.query("ROLLBACK").catch((error: Error) => (broken = error));
    if (!broken) client.removeListener("error", onLost);
    client.release(broken);
  }
}

/** The run with its times null when its log recorded none (display.ts `timesRecorded`, as the pages say "not recorded"). */
function withoutStandInTimes(run: ExportedRun): ExportedRun {
  if (run.startedAt === null || timesRecorded(run.startedAt)) return run;
  return { ...run, startedAt: null, scoredAt: null, endedAt: null };
}

const batchQuery = (evaluationId: string, after: string, batchSize: number) => Prisma.sql`
        SELECT r.id::text, r.external_id AS "externalId", r.task_id AS "taskId", r.group_id AS "groupId", r.attempt, r.run_class AS "runClass",
               r.run_class_evidence AS "runClassEvidence", r.started_at AS "startedAt", r.scored_at AS "scoredAt", r.ended_at AS "endedAt",
               r.endpoint_label AS "endpointLabel", r.unscored_reason AS "unscoredReason", r.score, r.threshold, r.terminal_label AS "terminalLabel",
               r.finality, r.unresolved_reason AS "unresolvedReason", r.unresolved_effect_id AS "unresolvedEffectId",
               r.unresolved_tool AS "unresolvedTool", r.disagreement,
               CASE r.labels->>'security' WHEN 'success' THEN true WHEN 'failure' THEN false END AS "attackSucceeded", coalesce(r.analysis_unit, r.id)::text AS "analysisUnit",
               coalesce(u.runs, 1) AS "analysisUnitRuns", r.inherited_state AS "inheritedState",
               (SELECT count(*)::int FROM evaluation_effects e WHERE e.run_id = r.id) AS effects,
               r.input_tokens::float8 AS "inputTokens", r.output_tokens::float8 AS "outputTokens", r.model_calls AS "modelCalls",
               -- Every run's finality is under the applied version (a recompute writes only the runs it changes).
               ev.effect_policy_version AS "effectPolicyVersion"
          FROM evaluation_runs r
          JOIN evaluations ev ON ev.id = r.evaluation_id
          LEFT JOIN evaluation_units u ON u.evaluation_id = r.evaluation_id AND u.unit = r.analysis_unit
         WHERE r.evaluation_id = ${evaluationId}::uuid AND r.id > ${after}::bigint
         ORDER BY r.id LIMIT ${batchSize}`;

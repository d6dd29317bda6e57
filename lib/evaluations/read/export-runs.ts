// An evaluation's runs as a download (docs/evaluations.md, Export, delete, and the audit log): one row per run with its audit and its analysis
// unit, in stored order, read in keyset batches so that memory holds one batch whatever the size.
import type { PoolClient } from "pg";
import { z } from "zod";
import { poolOf, type Db } from "../../db/prisma";
import { Prisma } from "../../generated/prisma/client";
import { rowsOf } from "../../db/rows";
import { oneOf } from "../../http/pagination";
import { timesRecorded } from "./display";
import { unitLabelOf } from "./evaluation-runs";

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
  /** The unit's label within the evaluation (U1, U2, … by the units' first runs, as the runs list shows it); null (an empty CSV cell) for a run alone. */
  unitLabel: z.string().nullable(),
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

/** A batch's row: the run's id (the keyset) and its unit's id (null for a run alone), labelled by `UnitOrdinals`. */
const batchRow = exportedRun.extend({ id: z.string(), unit: z.string().nullable() });
type BatchRow = z.infer<typeof batchRow>;

/** At most this many units' ordinals are remembered from one batch to the next (the oldest forgotten first). */
const REMEMBERED_UNITS = 100_000;

/**
 * The unit ordinals of an export read in stored order (U1, U2, … as the runs list labels them, evaluation-runs.ts
 * `unitOrdinalsSql`): a unit's first run comes before its other runs, so counting the first runs as they stream by
 * gives each its ordinal. A batch's run whose unit began in an earlier batch finds it remembered, or else counts back from
 * the batch's start to the unit on the index of first runs: each batch reads only its own runs and the first runs since
 * its oldest forgotten unit, never the evaluation from its start.
 */
class UnitOrdinals {
  private firstRunsBefore = 0;
  private readonly remembered = new Map<string, number>();

  constructor(
    private readonly client: PoolClient,
    private readonly evaluationId: string,
    private readonly capacity: number,
  ) {}

  /** Each row's unit label, for the batch after run `after`; call once per batch, in order. */
  async label(rows: readonly BatchRow[], after: string): Promise<(string | null)[]> {
    const ordinals = new Map<string, number>();
    const earlier = new Set<string>();
    let firstRuns = this.firstRunsBefore;
    for (const row of rows) {
      if (row.unit === null) continue;
      if (row.unit === row.id) {
        ordinals.set(row.unit, ++firstRuns);
        if (row.analysisUnitRuns > 1) this.remember(row.unit, firstRuns);
      } else if (!ordinals.has(row.unit) && BigInt(row.unit) <= BigInt(after)) {
        const known = this.remembered.get(row.unit);
        if (known === undefined) earlier.add(row.unit);
        else ordinals.set(row.unit, known);
      }
    }
    for (const [unit, ordinal] of await this.countBack([...earlier], after)) {
      ordinals.set(unit, ordinal);
      this.remember(unit, ordinal);
    }
    this.firstRunsBefore = firstRuns;
    return rows.map((row) => {
      if (row.unit === null) return null;
      const ordinal = ordinals.get(row.unit);
      if (ordinal === undefined) throw new Error(`run ${row.id}'s unit ${row.unit} has no first run in the evaluation before it`);
      return unitLabelOf(ordinal);
    });
  }

  /** The ordinals of units that began by run `after`: the first runs by then, less those from the unit on, plus one. */
  private async countBack(units: string[], after: string): Promise<Map<string, number>> {
    if (units.length === 0) return new Map();
    const query = Prisma.sql`
      SELECT unit::text, (sum(until_next) OVER (ORDER BY unit DESC))::int AS from_unit FROM (
        SELECT unit, (SELECT count(*) FROM evaluation_runs f
                       WHERE f.evaluation_id = ${this.evaluationId}::uuid AND f.analysis_unit = f.id AND f.id >= unit AND f.id <= coalesce(next - 1, ${after}::bigint)) AS until_next
          FROM (SELECT unit, lead(unit) OVER (ORDER BY unit) AS next FROM unnest(${units}::bigint[]) AS named (unit)) AS gaps
      ) AS counted`;
    const rows = rowsOf(
      z.object({ unit: z.string(), from_unit: z.number().int() }),
      (await this.client.query(query.text, query.values as unknown[])).rows,
    );
    return new Map(rows.map((r) => [r.unit, this.firstRunsBefore - r.from_unit + 1]));
  }

  private remember(unit: string, ordinal: number) {
    this.remembered.set(unit, ordinal);
    if (this.remembered.size > this.capacity) this.remembered.delete(this.remembered.keys().next().value!);
    if (this.capacity === 0) this.remembered.clear();
  }
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
  "attackSucceeded",
  "analysisUnit",
  "unitLabel",
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
 * its rows, so no export mixes two versions (docs/evaluations.md, A new policy version is a job), and runs ingested meanwhile are not in it.
 */
export async function* evaluationRunBatches(
  db: Db,
  evaluationId: string,
  batchSize = 1_000,
  rememberedUnits = REMEMBERED_UNITS,
): AsyncGenerator<ExportedRun[]> {
  const client = await poolOf(db).connect();
  let broken: Error | undefined;
  let committed = false;
  const onLost = (error: Error) => (broken ??= error);
  client.on("error", onLost);
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    const unitOrdinals = new UnitOrdinals(client, evaluationId, rememberedUnits);
    // From just before the evaluation's own first run: from 0, the planner may walk the primary key through every run
    // of the evaluations stored before this one, a million after a bulk load.
    const [first] = rowsOf(
      z.object({ after: z.string().nullable() }),
      (await client.query("SELECT (min(id) - 1)::text AS after FROM evaluation_runs WHERE evaluation_id = $1::uuid", [evaluationId])).rows,
    );
    for (let after = first?.after ?? "0"; ;) {
      const batch = batchQuery(evaluationId, after, batchSize);
      const rows = rowsOf(batchRow, (await client.query(batch.text, batch.values as unknown[])).rows);
      const labels = await unitOrdinals.label(rows, after);
      if (rows.length > 0) yield rows.map(({ id: _id, unit: _unit, ...run }, k) => withoutStandInTimes({ ...run, unitLabel: labels[k]! }));
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

/** One batch: the runs after `after` in stored order. */
const batchQuery = (evaluationId: string, after: string, batchSize: number) => Prisma.sql`
        WITH batch AS (SELECT * FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid AND id > ${after}::bigint ORDER BY id LIMIT ${batchSize})
        SELECT r.id::text, r.external_id AS "externalId", r.task_id AS "taskId", r.group_id AS "groupId", r.attempt, r.run_class AS "runClass",
               r.run_class_evidence AS "runClassEvidence", r.started_at AS "startedAt", r.scored_at AS "scoredAt", r.ended_at AS "endedAt",
               r.endpoint_label AS "endpointLabel", r.unscored_reason AS "unscoredReason", r.score, r.threshold, r.terminal_label AS "terminalLabel",
               r.finality, r.unresolved_reason AS "unresolvedReason", r.unresolved_effect_id AS "unresolvedEffectId",
               r.unresolved_tool AS "unresolvedTool", r.disagreement,
               CASE r.labels->>'security' WHEN 'success' THEN true WHEN 'failure' THEN false END AS "attackSucceeded", coalesce(r.analysis_unit, r.id)::text AS "analysisUnit",
               NULL::text AS "unitLabel", r.analysis_unit::text AS unit, coalesce(u.runs, 1) AS "analysisUnitRuns", r.inherited_state AS "inheritedState",
               (SELECT count(*)::int FROM evaluation_effects e WHERE e.run_id = r.id) AS effects,
               r.input_tokens::float8 AS "inputTokens", r.output_tokens::float8 AS "outputTokens", r.model_calls AS "modelCalls",
               -- Every run's finality is under the applied version (a recompute writes only the runs it changes).
               ev.effect_policy_version AS "effectPolicyVersion"
          FROM batch r
          JOIN evaluations ev ON ev.id = r.evaluation_id
          LEFT JOIN evaluation_units u ON u.evaluation_id = r.evaluation_id AND u.unit = r.analysis_unit
         ORDER BY r.id`;

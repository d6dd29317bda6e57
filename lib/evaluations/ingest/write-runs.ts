// Step 3 of ingestion: the batch's valid runs written in one transaction (writeRuns), one multi-row
// statement or COPY per table, idempotent on (evaluation, externalId) by a content hash, and audited
// before commit (lib/evaluations/audit/). Its rows come from rows.ts. Under the evaluation's audit
// lock it takes one of two paths:
// - the append path (appendNewRuns): no run of the batch is stored with other content, so its new
//   runs are copied in once, prepared before the lock, their units decided incrementally;
// - the upsert path (upsertChangedRuns): a run is re-sent with changes, so the batch is upserted by
//   content hash, the changed runs' children replaced, and the separation of every surface they
//   touch recomputed from its history.
import { z } from "zod";
import { poolOf, type Db } from "../../db/prisma";
import { copyFormat } from "../../db/pg-copy";
import { sqlTransaction, type CopyTx } from "../../db/sql-transaction";
import { unnestRows } from "../../db/unnest-rows";
import { notFound } from "../../errors";
import { recordTracesJob } from "../record-traces/job";
import { batchSurfaces, type BatchSurfaces } from "../audit/links";
import { currentPolicy, lockEvaluationAudit } from "../audit/lock";
import { recomputeSeparation } from "../audit/separation-recompute";
import { addRunsToSeparation } from "../audit/separation-incremental";
import { refreshSurfaceStats } from "../audit/surface-stats-store";
import type { FinalityResolution } from "../finality";
import { callSurfacer, toolClassifier } from "../policy";
import { RESOLUTION_STATUSES, type ToolClass } from "../vocabulary";
import type { RunRecord, TouchRecord } from "../run-record-schema";
import { inSlices } from "./in-slices";
import {
  CHILD_COLUMNS,
  CHILD_TABLES,
  childRows,
  DETACHED_CHILD_TABLES,
  policyTouches,
  RUN_COLUMNS,
  runColumns,
  surfacesOf,
  withDerivedTouches,
  type CallSurfacer,
  type ChildTable,
} from "./rows";
import type { ValidRun } from "./validate";

/** Who records the stored runs' call sequences in the trace library: see IngestOptions (ingest-runs.ts). */
export type TracesBy = "job" | "caller";

export type Written = { id: string; external_id: string; inserted: boolean };

const CHILD_FORMATS = Object.fromEntries(CHILD_TABLES.map((table) => [table, copyFormat(CHILD_COLUMNS[table])])) as Record<
  ChildTable,
  ReturnType<typeof copyFormat>
>;

/**
 * One transaction storing valid runs, or none of them: answers the runs written (created or
 * updated); the others were stored unchanged already.
 */
export async function writeRuns(db: Db, evaluationId: string, valid: readonly ValidRun[], traces: TracesBy): Promise<Written[]> {
  // On node-postgres directly: Prisma's engine passed the batch's large parameters several times slower.
  return sqlTransaction(poolOf(db), (tx) => writeRunsIn(tx, evaluationId, valid, traces));
}

/** writeRuns inside the caller's transaction (a live run stores its record with its events: lib/evaluations/live/). */
export async function writeRunsIn(tx: CopyTx, evaluationId: string, valid: readonly ValidRun[], traces: TracesBy): Promise<Written[]> {
  // Short, indexed statements: compiling them (JIT, on by default above a cost the planner's guesses
  // for unnested or json_to_recordset rows cross) took longer than running them.
  await tx.$executeRaw`SELECT set_config('jit', 'off', true)`;
  const policy = await currentPolicy(tx, evaluationId, "share");
  if (!policy) throw notFound("evaluation");
  const classOf = toolClassifier(policy.policy);
  const surfacer = callSurfacer(policy.policy);
  // Made before the audit lock, while another batch of the evaluation may hold it: the one thread's
  // formatting of every row (and the batch's surface spans) then overlaps that batch's statements
  // instead of following them. Runs stored already (a re-send) are not prepared; the lock decides.
  const storedBefore = await storedHashes(tx, evaluationId, valid);
  const prepared = await prepareNewRuns(
    tx,
    evaluationId,
    policy.version,
    classOf,
    surfacer,
    valid.filter((v) => !storedBefore.has(v.run.externalId)),
  );
  // The rows no counter or audit reads for the batch's own runs go in now, in parallel with the
  // batch that holds the lock (their run keys are checked at commit: migration deferred_child_run_keys).
  for (const table of DETACHED_CHILD_TABLES)
    await tx.copyLines(table, CHILD_FORMATS[table].names, prepared.map((p) => p.children[table]).join(""));
  const preparedSurfaces = batchSurfaces(prepared.map((p) => ({ id: p.id, run: p.audited })));
  // Batches of one evaluation are stored one at a time (their validation runs in parallel, before):
  // the separation audit reads and rewrites runs another batch may be writing.
  await lockEvaluationAudit(tx, evaluationId);
  // Which runs are stored already, and with which content: under the lock no other batch of this evaluation writes.
  const known = await storedHashes(tx, evaluationId, valid);
  const resent = valid.some((v) => known.has(v.run.externalId) && known.get(v.run.externalId) !== v.hash);
  // Prepared runs another batch stored meanwhile, or every prepared run when the upsert path stores the batch
  // itself: the rows copied for them before the lock go.
  const unused = prepared.filter((p) => resent || known.has(p.valid.run.externalId)).map((p) => p.id);
  if (unused.length > 0) await deleteDetachedChildren(tx, unused);
  // The surfaces made before the lock are the batch's while none of its prepared runs proved stored.
  const written = resent
    ? await upsertChangedRuns(tx, evaluationId, policy.version, classOf, surfacer, valid)
    : await appendNewRuns(
        tx,
        evaluationId,
        prepared.filter((p) => !known.has(p.valid.run.externalId)),
        unused.length === 0 ? preparedSurfaces : undefined,
      );
  if (written.length > 0 && traces === "job") await recordTracesJob.enqueue(tx, { evaluationId });
  return written;
}

/** The content hash of each of the batch's runs the evaluation holds (committed, or written by this transaction). */
async function storedHashes(tx: CopyTx, evaluationId: string, valid: readonly ValidRun[]): Promise<Map<string, string>> {
  return new Map(
    z
      .array(z.object({ external_id: z.string(), content_hash: z.string() }))
      .parse(
        // One probe of the (evaluation, externalId) key per run: with `external_id = ANY(…)` the planner, its
        // statistics lagging behind a growing evaluation, scanned every run of it, a cost growing with the evaluation.
        await tx.$queryRaw`
          SELECT r.external_id, r.content_hash FROM unnest(${valid.map((v) => v.run.externalId)}::text[]) AS x(external_id)
           CROSS JOIN LATERAL (SELECT external_id, content_hash FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid AND external_id = x.external_id OFFSET 0) r`,
      )
      .map((r) => [r.external_id, r.content_hash]),
  );
}

/**
 * A valid run ready to be copied in if it proves new: its id, the record the separation audit reads (with the touches its policy
 * derives), its row as COPY text but for its unit and inherited state (decided under the audit lock), its children's COPY text.
 */
interface PreparedRun {
  id: string;
  valid: ValidRun;
  audited: RunRecord;
  line: string;
  children: Record<ChildTable, string>;
}

const NEW_RUN_FORMAT = copyFormat({ id: "bigint", evaluation_id: "uuid", audit_policy_version: "int", ...RUN_COLUMNS });

/**
 * Every valid run of a batch as it is copied in if new, before the audit lock: ids are drawn for
 * all of them (a run found stored leaves its id unused, as a rolled-back batch does), finality
 * is audited from the record alone (a new run has no posted resolutions), the COPY text made.
 */
async function prepareNewRuns(
  tx: CopyTx,
  evaluationId: string,
  policyVersion: number,
  classOf: (tool: string) => ToolClass,
  surfacer: CallSurfacer,
  valid: readonly ValidRun[],
): Promise<PreparedRun[]> {
  const ids = await idsInSentOrder(tx, valid);
  const prepared: PreparedRun[] = [];
  await inSlices(valid, (v, k) => {
    const id = ids[k]!;
    const derived = policyTouches(v.run, surfacer);
    const rows = childRows(evaluationId, id, v.run, derived);
    const children = {} as Record<ChildTable, string>;
    for (const table of CHILD_TABLES) children[table] = rows[table].map((row) => `${CHILD_FORMATS[table].line(row)}\n`).join("");
    prepared.push({
      id,
      valid: v,
      audited: withDerivedTouches(v.run, derived),
      line: NEW_RUN_FORMAT.line({
        id,
        evaluation_id: evaluationId,
        audit_policy_version: policyVersion,
        ...runColumns(v, classOf, new Map()),
      }),
      children,
    });
  });
  return prepared;
}

/**
 * A run id for each of `valid` (in its order): ascending in the order the runs were sent, so that the stored order (by id)
 * is the sender's, while the rows are written in externalId order (for the locks). A run found stored leaves its id unused.
 */
async function idsInSentOrder(tx: CopyTx, valid: readonly ValidRun[]): Promise<string[]> {
  const drawn = z
    .array(z.object({ id: z.string() }))
    .parse(
      await tx.$queryRaw`
        SELECT drawn.id::text AS id FROM (SELECT nextval(pg_get_serial_sequence('evaluation_runs', 'id')) AS id FROM generate_series(1, ${valid.length}::int)) AS drawn
         ORDER BY drawn.id`,
    )
    .map((r) => r.id);
  const ids: string[] = new Array<string>(valid.length);
  [...valid.keys()].sort((a, b) => valid[a]!.index - valid[b]!.index).forEach((k, rank) => (ids[k] = drawn[rank]!));
  return ids;
}

/** The rows copied before the lock for prepared runs that proved unused (DETACHED_CHILD_TABLES), in one statement. */
async function deleteDetachedChildren(tx: CopyTx, unused: readonly string[]): Promise<void> {
  await tx.$executeRaw`
    WITH resolutions AS (DELETE FROM evaluation_effect_resolutions WHERE run_id = ANY(${unused}::bigint[])),
         touches AS (DELETE FROM evaluation_touches WHERE run_id = ANY(${unused}::bigint[])),
         resets AS (DELETE FROM evaluation_resets WHERE run_id = ANY(${unused}::bigint[])),
         messages AS (DELETE FROM evaluation_run_messages WHERE run_id = ANY(${unused}::bigint[])),
         model_calls AS (DELETE FROM evaluation_run_model_calls WHERE run_id = ANY(${unused}::bigint[])),
         links AS (DELETE FROM evaluation_run_traces WHERE run_id = ANY(${unused}::bigint[]))
    DELETE FROM evaluation_reset_canaries WHERE run_id = ANY(${unused}::bigint[])`;
}

/**
 * The append path, a batch of runs none of which is stored: their ids are drawn first, so that the
 * separation audit (addRunsToSeparation: no surface's history read) decides each run's unit and
 * inherited state before the run is written, and every row is inserted once, never updated.
 */
async function appendNewRuns(
  tx: CopyTx,
  evaluationId: string,
  fresh: readonly PreparedRun[],
  surfaces?: BatchSurfaces,
): Promise<Written[]> {
  if (fresh.length === 0) return [];
  const runs = fresh.map((p) => ({ id: p.id, run: p.audited }));
  const { audit, slow } = await addRunsToSeparation(tx, evaluationId, runs, surfaces);
  await tx.copyLines(
    "evaluation_runs",
    [...NEW_RUN_FORMAT.names, "analysis_unit", "inherited_state"],
    fresh.map((p) => `${p.line}\t${audit.get(p.id)?.unit ?? p.id}\t${audit.get(p.id)?.inherited ?? "none"}\n`).join(""),
  );
  // The effects under the lock: their trigger counts them per tool, as the runs' does their calls (rows every batch updates).
  await tx.copyLines(
    "evaluation_effects",
    CHILD_FORMATS.evaluation_effects.names,
    fresh.map((p) => p.children.evaluation_effects).join(""),
  );
  // Surfaces with a verified reset: their links may start and end, recomputed from their history.
  if (slow.length > 0) await recomputeSeparation(tx, evaluationId, slow, []);
  return runs.map(({ id, run }) => ({ id, external_id: run.externalId, inserted: true }));
}

const upsertedRows = z.array(z.object({ id: z.string(), external_id: z.string(), inserted: z.boolean(), calls_changed: z.boolean() }));

/**
 * The upsert path, a batch that re-sends stored runs with changes (and perhaps new ones): upserted by content hash,
 * the changed runs' children replaced, and the separation of every surface they touch, before and
 * after, recomputed from its history (a change may break links).
 */
async function upsertChangedRuns(
  tx: CopyTx,
  evaluationId: string,
  policyVersion: number,
  classOf: (tool: string) => ToolClass,
  surfacer: CallSurfacer,
  valid: readonly ValidRun[],
): Promise<Written[]> {
  const externalIds = valid.map((v) => v.run.externalId);
  // Resolutions posted earlier for runs being re-sent count towards their finality.
  const posted = z
    .array(z.object({ external_id: z.string(), effect_id: z.string(), status: z.enum(RESOLUTION_STATUSES), at_ms: z.coerce.number() }))
    .parse(
      await tx.$queryRaw`
        SELECT r.external_id, s.effect_id, s.status, extract(epoch FROM s.at) * 1000 AS at_ms
          FROM evaluation_runs r JOIN evaluation_effect_resolutions s ON s.run_id = r.id AND s.source = 'posted'
         WHERE r.evaluation_id = ${evaluationId}::uuid AND r.external_id = ANY(${externalIds}::text[])
         ORDER BY s.id`,
    );
  const postedFor = new Map<string, FinalityResolution[]>();
  for (const p of posted) {
    const key = `${p.external_id}\u0000${p.effect_id}`;
    postedFor.set(key, [...(postedFor.get(key) ?? []), { status: p.status, atMs: p.at_ms }]);
  }
  const ids = await idsInSentOrder(tx, valid);
  const runRows = valid.map((v, k) => ({ id: ids[k]!, ...runColumns(v, classOf, postedFor) }));
  // `before` reads the runs as they were before the statement (its CTEs share one snapshot): whether a re-sent run's calls changed.
  const upserted = upsertedRows.parse(
    await tx.$queryRaw`
      WITH before AS (
        SELECT r.id, r.tool_calls FROM unnest(${externalIds}::text[]) AS x(external_id)
         CROSS JOIN LATERAL (SELECT id, tool_calls FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid AND external_id = x.external_id OFFSET 0) r
      ), written AS (
      INSERT INTO evaluation_runs (id, analysis_unit, evaluation_id, external_id, task_id, group_id, attempt, started_at, ended_at, scored_at, endpoint_label,
                                   unscored_reason, terminal_label, score, threshold, tool_calls, labels, pipeline, injection_task_id, run_class, run_class_evidence, scorer_values,
                                   input_tokens, output_tokens, model_calls, content_hash, finality, unresolved_reason, unresolved_effect_id, unresolved_tool, finality_basis, harness_design,
                                   disagreement, open_effects, audit_policy_version)
      -- A new run starts as its own analysis unit; the separation audit below merges the connected ones.
      SELECT x.id, x.id, ${evaluationId}::uuid, x.external_id, x.task_id, x.group_id, x.attempt, x.started_at, x.ended_at, x.scored_at, x.endpoint_label,
             x.unscored_reason, x.terminal_label, x.score, x.threshold, x.tool_calls, x.labels, x.pipeline, x.injection_task_id, x.run_class, x.run_class_evidence, x.scorer_values,
             x.input_tokens, x.output_tokens, x.model_calls, x.content_hash, x.finality, x.unresolved_reason, x.unresolved_effect_id, x.unresolved_tool, x.finality_basis, x.harness_design,
             x.disagreement, x.open_effects, ${policyVersion}
        FROM ${unnestRows(runRows, { id: "bigint", ...RUN_COLUMNS })}
      ON CONFLICT (evaluation_id, external_id) DO UPDATE
         SET task_id = EXCLUDED.task_id, group_id = EXCLUDED.group_id, attempt = EXCLUDED.attempt, started_at = EXCLUDED.started_at,
             ended_at = EXCLUDED.ended_at, scored_at = EXCLUDED.scored_at, endpoint_label = EXCLUDED.endpoint_label, unscored_reason = EXCLUDED.unscored_reason,
             terminal_label = EXCLUDED.terminal_label, score = EXCLUDED.score, threshold = EXCLUDED.threshold, tool_calls = EXCLUDED.tool_calls, labels = EXCLUDED.labels,
             pipeline = EXCLUDED.pipeline, injection_task_id = EXCLUDED.injection_task_id,
             run_class = EXCLUDED.run_class, run_class_evidence = EXCLUDED.run_class_evidence, scorer_values = EXCLUDED.scorer_values,
             input_tokens = EXCLUDED.input_tokens, output_tokens = EXCLUDED.output_tokens, model_calls = EXCLUDED.model_calls,
             content_hash = EXCLUDED.content_hash, finality = EXCLUDED.finality, unresolved_reason = EXCLUDED.unresolved_reason,
             unresolved_effect_id = EXCLUDED.unresolved_effect_id, unresolved_tool = EXCLUDED.unresolved_tool,
             finality_basis = EXCLUDED.finality_basis, harness_design = EXCLUDED.harness_design,
             disagreement = EXCLUDED.disagreement, open_effects = EXCLUDED.open_effects, audit_policy_version = EXCLUDED.audit_policy_version, updated_at = now()
       WHERE evaluation_runs.content_hash <> EXCLUDED.content_hash
      RETURNING id, external_id, (xmax = 0) AS inserted, tool_calls)
      SELECT w.id::text AS id, w.external_id, w.inserted, b.tool_calls IS DISTINCT FROM w.tool_calls AS calls_changed
        FROM written w LEFT JOIN before b ON b.id = w.id`,
  );
  const written = upserted.map(({ id, external_id, inserted }) => ({ id, external_id, inserted }));
  const idOf = new Map(written.map((w) => [w.external_id, w.id]));
  const updated = written.filter((w) => !w.inserted).map((w) => w.id);
  // The surfaces the changed runs' old versions touched are recomputed too; their own record's children are replaced.
  const oldSurfaces = z
    .array(z.object({ surface: z.string() }))
    .parse(
      await tx.$queryRaw`
        SELECT surface FROM evaluation_touches WHERE run_id = ANY(${updated}::bigint[])
        UNION SELECT surface FROM evaluation_effects WHERE run_id = ANY(${updated}::bigint[]) AND surface IS NOT NULL
        UNION SELECT surface FROM evaluation_resets WHERE run_id = ANY(${updated}::bigint[])`,
    )
    .map((r) => r.surface);
  await tx.$executeRaw`DELETE FROM evaluation_effects WHERE run_id = ANY(${updated}::bigint[])`;
  await tx.$executeRaw`DELETE FROM evaluation_touches WHERE run_id = ANY(${updated}::bigint[])`;
  await tx.$executeRaw`DELETE FROM evaluation_resets WHERE run_id = ANY(${updated}::bigint[])`;
  await tx.$executeRaw`DELETE FROM evaluation_effect_resolutions WHERE run_id = ANY(${updated}::bigint[]) AND source = 'record'`;
  await tx.$executeRaw`DELETE FROM evaluation_reset_canaries WHERE run_id = ANY(${updated}::bigint[]) AND source = 'record'`;
  await tx.$executeRaw`DELETE FROM evaluation_run_messages WHERE run_id = ANY(${updated}::bigint[])`;
  await tx.$executeRaw`DELETE FROM evaluation_run_model_calls WHERE run_id = ANY(${updated}::bigint[])`;
  // A re-sent run keeps its trace link while its calls are the same; one whose calls changed gets a new row (a trace
  // pass that read the old one finds it deleted and leaves it) for the next pass (lib/evaluations/record-traces/record-traces.ts).
  const relinked = new Set(upserted.filter((w) => w.calls_changed).map((w) => w.id));
  await tx.$executeRaw`DELETE FROM evaluation_run_traces WHERE run_id = ANY(${[...relinked]}::bigint[])`;
  const changed = valid
    .filter((v) => idOf.has(v.run.externalId))
    .map((v) => ({ run: v.run, id: idOf.get(v.run.externalId)!, derived: policyTouches(v.run, surfacer) }));
  await insertChildren(tx, evaluationId, changed, relinked);
  const surfaces = [...new Set([...oldSurfaces, ...changed.flatMap((c) => surfacesOf(c.run, c.derived))])];
  await refreshSurfaceStats(tx, evaluationId, surfaces);
  await recomputeSeparation(tx, evaluationId, surfaces, updated);
  return written;
}

/** The children of stored runs: one COPY per table; a trace link only for the runs in `relinked` (new, or their calls changed). */
async function insertChildren(
  tx: CopyTx,
  evaluationId: string,
  runs: { run: RunRecord; id: string; derived: TouchRecord[] }[],
  relinked: ReadonlySet<string>,
): Promise<void> {
  const rows = runs.map(({ run, id, derived }) => childRows(evaluationId, id, run, derived));
  for (const table of CHILD_TABLES)
    await tx.copyRows(
      table,
      rows.flatMap((r) => r[table]).filter((row) => table !== "evaluation_run_traces" || relinked.has(String(row.run_id))),
      CHILD_COLUMNS[table],
    );
}

// Ingestion of a batch of runs (POST /api/v1/evaluations/{id}/runs): each run parsed on its own, so
// a bad run refuses only itself; the good ones stored in one transaction, with one multi-row
// statement per table (its rows as column arrays, unnested), idempotent on (evaluation, externalId) by a content hash
// (ON CONFLICT … WHERE the hash differs), and audited before commit: finality from the record (and
// any resolutions posted earlier), separation for the surfaces the batch touched. The runs' call
// sequences go into the trace library after the request, by a job committed with them.
import { createHash } from "node:crypto";
import { z } from "zod";
import { poolOf, type Db } from "../db/prisma";
import { retryOnTransactionConflict, storeIsolatingRefusals } from "../db/isolate-refusals";
import { sqlTransaction, type CopyTx } from "../db/sql-transaction";
import { copyFormat } from "../db/pg-copy";
import { unnestRows, type ColumnType } from "../db/unnest-rows";
import { notFound } from "../http/errors";
import { issueMessage } from "../http/input";
import { findUnstorable, printable } from "../http/storable";
import { enqueueRecordTracesJob } from "../jobs/queue";
import { disagrees } from "../replay/labels";
import { addRunsToSeparation, batchSurfaces, currentPolicy, finalityColumns, lockEvaluationAudit, recomputeSeparation, refreshSurfaceStats, type BatchSurfaces } from "./audit-store";
import { auditFinality, type FinalityEffect, type FinalityResolution } from "./finality";
import { toolClassifier } from "./policy";
import { runRecordSchema, type IngestResult, type RunRecord, type ToolClass } from "./schemas";

interface ValidRun {
  index: number;
  run: RunRecord;
  hash: string;
}

/** The first problem of a run that its schema refuses, named from the batch: `runs.3.effects.0.requestedAt`. */
function runError(index: number, error: z.ZodError): NonNullable<IngestResult["error"]> {
  const issue = error.issues[0]!;
  const path = [`runs`, index, ...issue.path.map((p) => printable(String(p))), ...(issue.code === "unrecognized_keys" ? [printable(issue.keys[0]!)] : [])].join(".");
  const message = issue.code === "unrecognized_keys" ? `unknown field(s): ${issue.keys.map(printable).join(", ")}` : issueMessage(issue);
  return { code: "invalid_run", message: `${path}: ${message}`, field: path };
}

const externalIdOf = (raw: unknown): string | null => (raw && typeof raw === "object" && typeof (raw as { externalId?: unknown }).externalId === "string" ? (raw as { externalId: string }).externalId : null);
/** The externalId a refused run is reported under, escaped when it is itself what cannot be stored. */
const storableExternalIdOf = (raw: unknown): string | null => {
  const id = externalIdOf(raw);
  return id === null ? null : printable(id);
};

/**
 * `work` for each item, in order, handing the thread back to the event loop between slices of
 * SLICE items. The server's one thread serves every request: a batch validated or formatted in one
 * go (~40 ms for 1,000 runs) held back the replies to the statements of the batch that holds the
 * evaluation's audit lock, and every batch of the evaluation waits on that one.
 */
async function inSlices<T>(items: readonly T[], work: (item: T, index: number) => void): Promise<void> {
  const SLICE = 50;
  for (let index = 0; index < items.length; index++) {
    if (index > 0 && index % SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    work(items[index]!, index);
  }
}

/** Parses every run; the second run with one externalId in a batch is refused (the first is kept). */
async function validate(rawRuns: readonly unknown[]): Promise<{ results: IngestResult[]; valid: ValidRun[] }> {
  const results: IngestResult[] = [];
  const valid: ValidRun[] = [];
  const seen = new Set<string>();
  await inSlices(rawRuns, (raw, index) => {
    // The route's edge check passes over the runs (UnparsedRuns): each is checked here, alone.
    const unstorable = findUnstorable(raw, ["runs", index]);
    if (unstorable) {
      const field = unstorable.path.join(".");
      results.push({ externalId: storableExternalIdOf(raw), status: "error", error: { code: "invalid_run", message: `${field}: ${unstorable.message}`, field } });
      return;
    }
    const parsed = runRecordSchema.safeParse(raw);
    if (!parsed.success) {
      results.push({ externalId: externalIdOf(raw), status: "error", error: runError(index, parsed.error) });
      return;
    }
    const run = parsed.data;
    if (seen.has(run.externalId)) {
      const field = `runs.${index}.externalId`;
      results.push({ externalId: run.externalId, status: "error", error: { code: "duplicate_in_batch", message: `${field}: externalId ${run.externalId} appears earlier in this batch`, field } });
      return;
    }
    seen.add(run.externalId);
    results.push({ externalId: run.externalId, status: "created" }); // settled after storage
    valid.push({ index, run, hash: createHash("sha256").update(JSON.stringify(run)).digest("hex") });
  });
  return { results, valid };
}

const ms = (iso: string) => Date.parse(iso);

/** The surfaces a run touches: the separation audit recomputes them. */
function surfacesOf(run: RunRecord): string[] {
  return [...(run.touches ?? []).map((t) => t.surface), ...(run.effects ?? []).flatMap((e) => (e.surface ? [e.surface] : [])), ...(run.resets ?? []).map((r) => r.surface), ...(run.scoredOn ?? [])];
}

export interface IngestOptions {
  /**
   * Who records the stored runs' call sequences in the trace library (lib/traces/imported.ts): a
   * record_traces job the batch enqueues (the default; its key merges the jobs of batches that
   * arrive while one waits), or the caller, which calls recordImportedTraces itself (the importer,
   * which may run where no worker does).
   */
  traces?: "job" | "caller";
}

/**
 * Stores a batch of runs in an evaluation and answers one result per run, in order. Throws
 * notFound for an unknown evaluation. Runs that are valid are stored (or found unchanged)
 * together; a run that is not leaves nothing of itself. Should PostgreSQL still refuse a valid
 * run's data, that run alone is refused (`refused_by_database`) and the others are stored.
 */
export async function ingestRuns(db: Db, evaluationId: string, rawRuns: readonly unknown[], options: IngestOptions = {}): Promise<IngestResult[]> {
  const { results, valid } = await validate(rawRuns);
  if (valid.length === 0) {
    if (!(await db.evaluation.findUnique({ where: { id: evaluationId }, select: { id: true } }))) throw notFound("evaluation");
    return results;
  }
  // Rows in externalId order, so that concurrent batches lock the same runs in the same order.
  valid.sort((a, b) => (a.run.externalId < b.run.externalId ? -1 : a.run.externalId > b.run.externalId ? 1 : 0));
  const { stored, refused } = await storeIsolatingRefusals(valid, (runs) => retryOnTransactionConflict(() => storeBatch(db, evaluationId, runs, options)));
  const statusOf = new Map(stored.map((w) => [w.external_id, w.inserted ? ("created" as const) : ("updated" as const)]));
  for (const { index, run } of valid) results[index] = { externalId: run.externalId, status: statusOf.get(run.externalId) ?? "unchanged" };
  for (const { item, error } of refused) {
    const field = `runs.${item.index}`;
    results[item.index] = { externalId: item.run.externalId, status: "error", error: { code: "refused_by_database", message: `${field}: PostgreSQL refused this run (${error.code}: ${error.message})`, field } };
  }
  return results;
}

/**
 * One transaction storing valid runs, or none of them: answers the runs written (created or
 * updated); the others were stored unchanged already.
 */
async function storeBatch(db: Db, evaluationId: string, valid: readonly ValidRun[], options: IngestOptions): Promise<Written[]> {
  // On node-postgres directly: Prisma's engine passed the batch's large parameters several times slower.
  return sqlTransaction(
    poolOf(db),
    async (tx) => {
      // Short, indexed statements: compiling them (JIT, on by default above a cost the planner's guesses
      // for unnested or json_to_recordset rows cross) took ~100 ms each, more than running them.
      await tx.$executeRaw`SELECT set_config('jit', 'off', true)`;
      const policy = await currentPolicy(tx, evaluationId, "share");
      if (!policy) throw notFound("evaluation");
      const classOf = toolClassifier(policy.policy);
      // Made before the audit lock, while another batch of the evaluation may hold it: the one thread's
      // formatting of every row (and the batch's surface spans) then overlaps that batch's statements
      // instead of following them. Runs stored already (a re-send) are not prepared; the lock decides.
      const storedBefore = await storedHashes(tx, evaluationId, valid);
      const prepared = await prepareNewRuns(tx, evaluationId, policy.version, classOf, valid.filter((v) => !storedBefore.has(v.run.externalId)));
      // The rows no counter or audit reads for the batch's own runs go in now, in parallel with the
      // batch that holds the lock (their run keys are checked at commit: migration deferred_child_run_keys).
      for (const table of DETACHED_CHILD_TABLES) await tx.copyLines(table, CHILD_FORMATS[table].names, prepared.map((p) => p.children[table]).join(""));
      const preparedSurfaces = batchSurfaces(prepared.map((p) => ({ id: p.id, run: p.valid.run })));
      // Batches of one evaluation are stored one at a time (their validation runs in parallel, before):
      // the separation audit reads and rewrites runs another batch may be writing.
      await lockEvaluationAudit(tx, evaluationId);
      // Which runs are stored already, and with which content: under the lock no other batch of this evaluation writes.
      const known = await storedHashes(tx, evaluationId, valid);
      const resent = valid.some((v) => known.has(v.run.externalId) && known.get(v.run.externalId) !== v.hash);
      // Prepared runs another batch stored meanwhile, or every prepared run when the changed path stores the batch
      // itself: the rows copied for them before the lock go.
      const unused = prepared.filter((p) => resent || known.has(p.valid.run.externalId)).map((p) => p.id);
      if (unused.length > 0) {
        await tx.$executeRaw`
          WITH resolutions AS (DELETE FROM evaluation_effect_resolutions WHERE run_id = ANY(${unused}::bigint[])),
               touches AS (DELETE FROM evaluation_touches WHERE run_id = ANY(${unused}::bigint[])),
               resets AS (DELETE FROM evaluation_resets WHERE run_id = ANY(${unused}::bigint[]))
          DELETE FROM evaluation_reset_canaries WHERE run_id = ANY(${unused}::bigint[])`;
      }
      // The surfaces made before the lock are the batch's while none of its prepared runs proved stored.
      const written = resent
        ? await storeWithChanges(tx, evaluationId, policy.version, classOf, valid)
        : await storeNewRuns(tx, evaluationId, prepared.filter((p) => !known.has(p.valid.run.externalId)), unused.length === 0 ? preparedSurfaces : undefined);
      if (written.length > 0 && (options.traces ?? "job") === "job") await enqueueRecordTracesJob(tx, evaluationId);
      return written;
    },
  );
}

/** The content hash of each of the batch's runs the evaluation holds (committed, or written by this transaction). */
async function storedHashes(tx: CopyTx, evaluationId: string, valid: readonly ValidRun[]): Promise<Map<string, string>> {
  return new Map(
    z
      .array(z.object({ external_id: z.string(), content_hash: z.string() }))
      .parse(
        // One probe of the (evaluation, externalId) key per run: with `external_id = ANY(…)` the planner, its
        // statistics lagging behind a growing evaluation, scanned every run of it (14 ms at 50,000 runs, linear).
        await tx.$queryRaw`
          SELECT r.external_id, r.content_hash FROM unnest(${valid.map((v) => v.run.externalId)}::text[]) AS x(external_id)
           CROSS JOIN LATERAL (SELECT external_id, content_hash FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid AND external_id = x.external_id OFFSET 0) r`,
      )
      .map((r) => [r.external_id, r.content_hash]),
  );
}

type Written = { id: string; external_id: string; inserted: boolean };

const UNSCORED_COLUMNS = { finality: "unscored", unresolved_reason: null, unresolved_effect_id: null, unresolved_tool: null } as const;

/** A run's own columns, its finality audited from its record and the resolutions posted for it earlier. */
function runColumns({ run, hash }: ValidRun, classOf: (tool: string) => ToolClass, posted: ReadonlyMap<string, FinalityResolution[]>) {
  const effects: FinalityEffect[] = (run.effects ?? []).map((e) => ({
    effectId: e.effectId,
    tool: e.tool,
    handle: e.handle ?? null,
    requestedAtMs: ms(e.requestedAt),
    statusAtScoring: e.statusAtScoring,
    resolutions: [...(e.resolution ? [{ status: e.resolution.status, atMs: ms(e.resolution.at) }] : []), ...(posted.get(`${run.externalId}\u0000${e.effectId}`) ?? [])],
  }));
  return {
    external_id: run.externalId,
    task_id: run.taskId,
    group_id: run.groupId ?? null,
    attempt: run.attempt ?? null,
    started_at: run.startedAt,
    ended_at: run.endedAt ?? null,
    scored_at: run.scoredAt ?? null,
    endpoint_label: run.endpointLabel ?? null,
    unscored_reason: run.unscoredReason ?? null,
    terminal_label: run.terminalLabel ?? null,
    score: run.score ?? null,
    threshold: run.threshold ?? null,
    tool_calls: run.toolCalls ?? null,
    labels: run.labels ?? null,
    content_hash: hash,
    // An unscored run has no label to disagree with, and no scoring time to audit finality at.
    disagreement: run.endpointLabel !== undefined && disagrees(run.endpointLabel, run.terminalLabel ?? null),
    ...(run.scoredAt === undefined ? UNSCORED_COLUMNS : finalityColumns(auditFinality({ scoredAtMs: ms(run.scoredAt), effects }, classOf))),
  };
}

const RUN_COLUMNS: Record<string, ColumnType> = {
  external_id: "text",
  task_id: "text",
  group_id: "text",
  attempt: "int",
  started_at: "timestamptz",
  ended_at: "timestamptz",
  scored_at: "timestamptz",
  endpoint_label: "text",
  unscored_reason: "text",
  terminal_label: "text",
  score: "float8",
  threshold: "float8",
  tool_calls: "jsonb",
  labels: "jsonb",
  content_hash: "text",
  finality: "text",
  unresolved_reason: "text",
  unresolved_effect_id: "text",
  unresolved_tool: "text",
  disagreement: "boolean",
};

/** A valid run ready to be copied in if it proves new: its id, its row as COPY text but for its unit and inherited state (decided under the audit lock), its children's COPY text. */
interface PreparedRun {
  id: string;
  valid: ValidRun;
  line: string;
  children: Record<ChildTable, string>;
}

const NEW_RUN_FORMAT = copyFormat({ id: "bigint", evaluation_id: "uuid", audit_policy_version: "int", ...RUN_COLUMNS });

/**
 * Every valid run of a batch as it is copied in if new, before the audit lock: ids are drawn for
 * all of them (a run found stored leaves its id unused, as a rolled-back batch does), finality
 * is audited from the record alone (a new run has no posted resolutions), the COPY text made.
 */
async function prepareNewRuns(tx: CopyTx, evaluationId: string, policyVersion: number, classOf: (tool: string) => ToolClass, valid: readonly ValidRun[]): Promise<PreparedRun[]> {
  const ids = z
    .array(z.object({ id: z.string() }))
    .parse(await tx.$queryRaw`SELECT nextval(pg_get_serial_sequence('evaluation_runs', 'id'))::text AS id FROM generate_series(1, ${valid.length}::int)`)
    .map((r) => r.id);
  const prepared: PreparedRun[] = [];
  await inSlices(valid, (v, k) => {
    const id = ids[k]!;
    const rows = childRows(evaluationId, id, v.run);
    const children = {} as Record<ChildTable, string>;
    for (const table of CHILD_TABLES) children[table] = rows[table].map((row) => `${CHILD_FORMATS[table].line(row)}\n`).join("");
    prepared.push({ id, valid: v, line: NEW_RUN_FORMAT.line({ id, evaluation_id: evaluationId, audit_policy_version: policyVersion, ...runColumns(v, classOf, new Map()) }), children });
  });
  return prepared;
}

/**
 * The fast path, a batch of runs none of which is stored: their ids are drawn first, so that the
 * separation audit (addRunsToSeparation: no surface's history read) decides each run's unit and
 * inherited state before the run is written, and every row is inserted once, never updated.
 */
async function storeNewRuns(tx: CopyTx, evaluationId: string, fresh: readonly PreparedRun[], surfaces?: BatchSurfaces): Promise<Written[]> {
  if (fresh.length === 0) return [];
  const runs = fresh.map((p) => ({ id: p.id, run: p.valid.run }));
  const { audit, slow } = await addRunsToSeparation(tx, evaluationId, runs, surfaces);
  await tx.copyLines(
    "evaluation_runs",
    [...NEW_RUN_FORMAT.names, "analysis_unit", "inherited_state"],
    fresh.map((p) => `${p.line}\t${audit.get(p.id)?.unit ?? p.id}\t${audit.get(p.id)?.inherited ?? "none"}\n`).join(""),
  );
  // The effects under the lock: their trigger counts them per tool, as the runs' does their calls (rows every batch updates).
  await tx.copyLines("evaluation_effects", CHILD_FORMATS.evaluation_effects.names, fresh.map((p) => p.children.evaluation_effects).join(""));
  // Surfaces with a verified reset: their links may start and end, recomputed from their history.
  if (slow.length > 0) await recomputeSeparation(tx, evaluationId, slow, []);
  return runs.map(({ id, run }) => ({ id, external_id: run.externalId, inserted: true }));
}

/**
 * A batch that re-sends stored runs with changes (and perhaps new ones): upserted by content hash,
 * the changed runs' children replaced, and the separation of every surface they touch, before and
 * after, recomputed from its history (a change may break links).
 */
async function storeWithChanges(tx: CopyTx, evaluationId: string, policyVersion: number, classOf: (tool: string) => ToolClass, valid: readonly ValidRun[]): Promise<Written[]> {
  const externalIds = valid.map((v) => v.run.externalId);
  // Resolutions posted earlier for runs being re-sent count towards their finality.
  const posted = z
    .array(z.object({ external_id: z.string(), effect_id: z.string(), status: z.string(), at_ms: z.coerce.number() }))
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
    postedFor.set(key, [...(postedFor.get(key) ?? []), { status: p.status as FinalityResolution["status"], atMs: p.at_ms }]);
  }
  const runRows = valid.map((v) => runColumns(v, classOf, postedFor));
  const written = z.array(z.object({ id: z.string(), external_id: z.string(), inserted: z.boolean() })).parse(
    await tx.$queryRaw`
      INSERT INTO evaluation_runs (id, analysis_unit, evaluation_id, external_id, task_id, group_id, attempt, started_at, ended_at, scored_at, endpoint_label,
                                   unscored_reason, terminal_label, score, threshold, tool_calls, labels, content_hash, finality, unresolved_reason, unresolved_effect_id,
                                   unresolved_tool, disagreement, audit_policy_version)
      -- A new run starts as its own analysis unit; the separation audit below merges the connected ones.
      SELECT x.id, x.id, ${evaluationId}::uuid, x.external_id, x.task_id, x.group_id, x.attempt, x.started_at, x.ended_at, x.scored_at, x.endpoint_label,
             x.unscored_reason, x.terminal_label, x.score, x.threshold, x.tool_calls, x.labels, x.content_hash, x.finality, x.unresolved_reason, x.unresolved_effect_id,
             x.unresolved_tool, x.disagreement, ${policyVersion}
        FROM (SELECT nextval(pg_get_serial_sequence('evaluation_runs', 'id')) AS id, x.* FROM ${unnestRows(runRows, RUN_COLUMNS)}) AS x
      ON CONFLICT (evaluation_id, external_id) DO UPDATE
         SET task_id = EXCLUDED.task_id, group_id = EXCLUDED.group_id, attempt = EXCLUDED.attempt, started_at = EXCLUDED.started_at,
             ended_at = EXCLUDED.ended_at, scored_at = EXCLUDED.scored_at, endpoint_label = EXCLUDED.endpoint_label, unscored_reason = EXCLUDED.unscored_reason,
             terminal_label = EXCLUDED.terminal_label, score = EXCLUDED.score, threshold = EXCLUDED.threshold, tool_calls = EXCLUDED.tool_calls, labels = EXCLUDED.labels,
             content_hash = EXCLUDED.content_hash, finality = EXCLUDED.finality, unresolved_reason = EXCLUDED.unresolved_reason,
             unresolved_effect_id = EXCLUDED.unresolved_effect_id, unresolved_tool = EXCLUDED.unresolved_tool,
             disagreement = EXCLUDED.disagreement, audit_policy_version = EXCLUDED.audit_policy_version, updated_at = now(),
             -- a run whose calls changed is linked to its new sequence's trace by the importer's next step (lib/traces/imported.ts)
             trace_id = CASE WHEN evaluation_runs.tool_calls IS NOT DISTINCT FROM EXCLUDED.tool_calls THEN evaluation_runs.trace_id END
       WHERE evaluation_runs.content_hash <> EXCLUDED.content_hash
      RETURNING id::text AS id, external_id, (xmax = 0) AS inserted`,
  );
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
  const changed = valid.filter((v) => idOf.has(v.run.externalId)).map((v) => ({ run: v.run, id: idOf.get(v.run.externalId)! }));
  await insertChildren(tx, evaluationId, changed);
  const surfaces = [...new Set([...oldSurfaces, ...changed.flatMap((c) => surfacesOf(c.run))])];
  await refreshSurfaceStats(tx, evaluationId, surfaces);
  await recomputeSeparation(tx, evaluationId, surfaces, updated);
  return written;
}

const CHILD_COLUMNS = {
  evaluation_effects: {
    run_id: "bigint",
    evaluation_id: "uuid",
    effect_id: "text",
    tool: "text",
    call_id: "text",
    trace_position: "int",
    arguments: "jsonb",
    surface: "text",
    controller: "text",
    handle: "text",
    requested_at: "timestamptz",
    acknowledged_at: "timestamptz",
    status_at_scoring: "text",
    possible_transitions: "text[]",
    relevant_until: "timestamptz",
    cross_run_route: "text",
    public: "boolean",
    notes: "text",
  },
  evaluation_effect_resolutions: { run_id: "bigint", evaluation_id: "uuid", effect_id: "text", status: "text", at: "timestamptz", evidence: "jsonb", verified_by: "text", source: "text" },
  evaluation_touches: { run_id: "bigint", evaluation_id: "uuid", surface: "text", op: "text", at: "timestamptz", public: "boolean" },
  evaluation_resets: { run_id: "bigint", evaluation_id: "uuid", surface: "text", at: "timestamptz", verified: "boolean", evidence: "jsonb" },
  evaluation_reset_canaries: { run_id: "bigint", evaluation_id: "uuid", surface: "text", reset_at: "timestamptz", planted: "text", found: "boolean", evidence: "jsonb", source: "text" },
} as const satisfies Record<string, Record<string, ColumnType>>;
type ChildTable = keyof typeof CHILD_COLUMNS;
const CHILD_TABLES = Object.keys(CHILD_COLUMNS) as ChildTable[];
/** A new run's children that no trigger counts and whose run key is checked at commit: copied before the audit lock. */
const DETACHED_CHILD_TABLES = ["evaluation_effect_resolutions", "evaluation_touches", "evaluation_resets", "evaluation_reset_canaries"] as const satisfies readonly ChildTable[];
const CHILD_FORMATS = Object.fromEntries(CHILD_TABLES.map((table) => [table, copyFormat(CHILD_COLUMNS[table])])) as Record<ChildTable, ReturnType<typeof copyFormat>>;

/** A run's effects, their record's resolutions, touches (scoredOn as `score` touches at scoredAt), resets and their canary checks, as rows. */
function childRows(evaluationId: string, id: string, run: RunRecord): Record<ChildTable, Record<string, unknown>[]> {
  return {
    evaluation_effects: (run.effects ?? []).map((e) => ({
      run_id: id,
      evaluation_id: evaluationId,
      effect_id: e.effectId,
      tool: e.tool,
      call_id: e.callId ?? null,
      trace_position: e.tracePosition ?? null,
      arguments: e.arguments ?? null,
      surface: e.surface ?? null,
      controller: e.controller ?? null,
      handle: e.handle ?? null,
      requested_at: e.requestedAt,
      acknowledged_at: e.acknowledgedAt ?? null,
      status_at_scoring: e.statusAtScoring,
      possible_transitions: e.possibleTransitions ?? null,
      relevant_until: e.relevantUntil ?? null,
      cross_run_route: e.crossRunRoute ?? null,
      public: e.public ?? false,
      notes: e.notes ?? null,
    })),
    evaluation_effect_resolutions: (run.effects ?? []).flatMap((e) =>
      e.resolution ? [{ run_id: id, evaluation_id: evaluationId, effect_id: e.effectId, status: e.resolution.status, at: e.resolution.at, evidence: e.resolution.evidence, verified_by: e.resolution.verifiedBy ?? null, source: "record" }] : [],
    ),
    evaluation_touches: [
      ...(run.touches ?? []).map((t) => ({ run_id: id, evaluation_id: evaluationId, surface: t.surface, op: t.op, at: t.at, public: t.public ?? false })),
      ...(run.scoredAt === undefined ? [] : (run.scoredOn ?? []).map((surface) => ({ run_id: id, evaluation_id: evaluationId, surface, op: "score", at: run.scoredAt, public: false }))),
    ],
    evaluation_resets: (run.resets ?? []).map((r) => ({ run_id: id, evaluation_id: evaluationId, surface: r.surface, at: r.at, verified: r.verified, evidence: r.evidence ?? null })),
    evaluation_reset_canaries: (run.resets ?? []).flatMap((r) =>
      r.canary ? [{ run_id: id, evaluation_id: evaluationId, surface: r.surface, reset_at: r.at, planted: r.canary.planted, found: r.canary.found, evidence: r.canary.evidence, source: "record" }] : [],
    ),
  };
}

/** The children of stored runs: one COPY per table. */
async function insertChildren(tx: CopyTx, evaluationId: string, runs: { run: RunRecord; id: string }[]): Promise<void> {
  const rows = runs.map(({ run, id }) => childRows(evaluationId, id, run));
  for (const table of CHILD_TABLES) await tx.copyRows(table, rows.flatMap((r) => r[table]), CHILD_COLUMNS[table]);
}

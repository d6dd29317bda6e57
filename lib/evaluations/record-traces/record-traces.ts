// Imported runs' call sequences in the trace library (docs/importers.md, The trace library): one trace of source
// `imported` per distinct ordered (function, arguments, stateChanging) sequence, shared by every run
// that made it, and each run's link (evaluation_run_traces) pointing at it. A trace's write marks are part of its
// identity (its content_hash, the SQL function imported_trace_hash): two evaluations whose policies
// mark one sequence differently get two traces, and a trace never changes once made, so an
// experiment that replayed it stays reproducible. Set-based and keyed on the evaluation's links
// without a trace yet, so it is idempotent, heals a run an earlier pass left unlinked, and costs one
// query when nothing is new. Runs without tool calls have no link row and get no trace.
import { z } from "zod";
import { poolOf, type Db } from "../../db/prisma";
import { sqlTransaction, type SqlTx } from "../../db/sql-transaction";
import { Prisma } from "../../generated/prisma/client";
import { lockEvaluationAudit } from "../audit/lock";
import { toolClassifier } from "../policy";
import { toolEntrySchema, type EffectPolicy } from "../effect-policy-schema";
import type { ToolClass } from "../vocabulary";

/**
 * Classes whose calls change state, or may: read_only alone does not. An unclassified tool counts as
 * one that may, as the audit counts it (its runs stay unresolved until it is classed), so the library
 * never calls a call read-only that the audit holds open.
 */
const STATE_CHANGING: ReadonlySet<ToolClass> = new Set(["sync_confirmed", "async_handle", "external", "unclassified"]);

/**
 * An AgentDojo task id, whatever the evaluation's benchmark says: `suite/user_task_N` (an attacked
 * run's goes on with its attack and injection task), or an injection task's. The ground-truth link in
 * lib/traces/library.ts matches the same runs by their first two parts.
 */
const AGENTDOJO_TASK_ID = "^[a-z_]+/(user|injection)_task_[0-9]+(/|$)";

/** The tools of `tools` that change state under the policy's classifier. Pure. */
export function stateChangingTools(tools: readonly string[], classOf: (tool: string) => ToolClass): string[] {
  return tools.filter((tool) => STATE_CHANGING.has(classOf(tool))).sort();
}

/**
 * Untraced runs one pass takes at most. An evaluation ingested while no worker ran holds all its
 * runs untraced: one pass over 1,000,000 of them outlived its transaction's 120 s, and the job
 * failed the same way at every retry.
 */
const PASS_RUNS = 5_000;

/**
 * Records the call sequences of the evaluation's runs that have none yet. Returns how many runs it
 * linked. An imported trace's suite is the AgentDojo suite of the first run that made it when that
 * run's task id has AgentDojo's shape (`banking/user_task_3`, whatever the evaluation's free-text
 * benchmark says), else the evaluation's benchmark (or name); its task is that run's user task (the
 * task id's second part: an attacked run's id goes on to its attack) or, outside that shape, its task
 * id. The first evaluation to make a sequence fixes its trace's suite: a trace is shared, never changed. Its calls' stateChanging comes from the evaluation's current effect policy,
 * which cannot change during a pass (a share lock; setEffectPolicy takes it exclusively).
 */
export async function recordImportedTraces(db: Db, evaluationId: string): Promise<number> {
  // One transaction per pass, so that a pass repeated after a lost race holds no trace of its own uncommitted. On
  // node-postgres: Prisma's client spent more CPU on a pass's few statements than PostgreSQL did on an import's small batch.
  return untilAllLinked(evaluationId, () => sqlTransaction(poolOf(db), (tx) => linkUntracedRuns(tx, evaluationId)));
}

/** recordImportedTraces inside the caller's transaction (every pass in it): for a caller that changes the evaluation's runs or policy in the same transaction. */
export async function recordImportedTracesInTransaction(tx: SqlTx, evaluationId: string): Promise<number> {
  return untilAllLinked(evaluationId, () => linkUntracedRuns(tx, evaluationId));
}

/**
 * After the evaluation's effect policy changed to `policy` (inside that change's transaction, which
 * holds the evaluation exclusively): unlinks the runs whose trace marks its calls' writes otherwise
 * than `policy` does, for recordImportedTracesInTransaction to link them to the trace of their
 * sequence under it (a new one, or an existing one with the same calls and marks). Runs whose trace
 * agrees keep it, and no trace is modified. Returns how many runs it unlinked.
 */
export async function unlinkRunsWithOtherMarks(tx: SqlTx, evaluationId: string, policy: EffectPolicy): Promise<number> {
  // Per imported trace, one probe of evaluation_run_traces_trace_idx: there are far fewer traces than runs.
  const linkedTraces = Prisma.sql`SELECT t.id, t.calls FROM traces t
     WHERE t.source = 'imported' AND EXISTS (SELECT 1 FROM evaluation_run_traces l WHERE l.trace_id = t.id AND l.evaluation_id = ${evaluationId}::uuid)`;
  const [{ tools }] = z
    .tuple([z.object({ tools: z.array(z.string()) })])
    .parse(
      await tx.$queryRaw`SELECT ARRAY(SELECT DISTINCT c->>'function' FROM (${linkedTraces}) t CROSS JOIN LATERAL jsonb_array_elements(t.calls) AS c) AS tools`,
    );
  const writes = stateChangingTools(tools, toolClassifier(policy));
  return tx.$executeRaw`
    UPDATE evaluation_run_traces SET trace_id = NULL
     WHERE evaluation_id = ${evaluationId}::uuid AND trace_id IN (
       SELECT t.id FROM (${linkedTraces}) t
        WHERE EXISTS (SELECT 1 FROM jsonb_array_elements(t.calls) AS c WHERE (c->>'stateChanging')::boolean IS DISTINCT FROM ((c->>'function') = ANY(${writes}::text[]))))`;
}

/** What one pass saw: untraced runs with calls, and how many of them it linked. */
interface Pass {
  seen: number;
  linked: number;
}

/**
 * Passes that leave runs unlinked before giving up. A lost race costs one more pass and a re-sent
 * run one more, so a few suffice; runs still unlinked after this many mean a bug or a writer that
 * never stops, and repeating for ever would hold the job (or the import, or the policy change's
 * transaction) for good.
 */
const MAX_LINK_PASSES = 10;

/** Runs left unlinked after MAX_LINK_PASSES passes: the record_traces job fails (and is retried), the importer reports the batch's files failed. */
export class UnlinkedRunsError extends Error {
  constructor(
    readonly evaluationId: string,
    readonly unlinked: number,
  ) {
    super(`evaluation ${evaluationId}: ${unlinked} run(s) still without their trace after ${MAX_LINK_PASSES} passes`);
  }
}

/**
 * Repeats the pass until one links every run it saw. A run is left unlinked when a concurrent pass
 * (another evaluation's, with the same sequence) inserted its trace first: ON CONFLICT waited for
 * that transaction to end, but the statement's snapshot predates it. The next pass sees that trace.
 * (Or when the run was re-sent between the pass's read and its update: the next pass sees it anew.)
 */
async function untilAllLinked(evaluationId: string, pass: () => Promise<Pass>): Promise<number> {
  let total = 0;
  for (let incomplete = 0; ;) {
    const { seen, linked } = await pass();
    total += linked;
    // A pass that saw fewer than PASS_RUNS saw every untraced run left.
    if (seen < PASS_RUNS && linked === seen) return total;
    if (linked < seen && ++incomplete === MAX_LINK_PASSES) throw new UnlinkedRunsError(evaluationId, seen - linked);
  }
}

const count = z.coerce.number().int();
const passRow = z.tuple([z.object({ seen: count, linked: count })]);

/**
 * One pass over up to PASS_RUNS of the evaluation's untraced runs, under a share lock on the evaluation
 * (its policy cannot change meanwhile) and then its audit lock, in the order every writer of the
 * evaluation's audit takes them (audit/lock.ts). The audit lock puts the pass after the evaluation's
 * other passes (two passes over the same untraced runs each waited for the other's row locks and linked
 * few of them) and after its ingest batches (a batch re-sending runs deletes the links a pass updates).
 * The pass once took a lock of its own before the evaluation's row: against a writer holding the row and
 * linking in its transaction, each waited for the other (40P01).
 */
async function linkUntracedRuns(tx: SqlTx, evaluationId: string): Promise<Pass> {
  const found = await tx.$queryRaw`SELECT 1 FROM evaluations WHERE id = ${evaluationId}::uuid FOR SHARE`;
  if (!Array.isArray(found) || found.length === 0) return { seen: 0, linked: 0 };
  await lockEvaluationAudit(tx, evaluationId);
  // One round trip when nothing is new: the evaluation, its current policy, the pass's runs and the tools they call.
  const [evaluation] = z
    .array(
      z.object({
        name: z.string(),
        benchmark: z.string().nullable(),
        policy: z.record(z.string(), toolEntrySchema),
        runs: z.array(z.string()),
        tools: z.array(z.string()),
      }),
    )
    .parse(
      await tx.$queryRaw`
        -- The untraced links first, then one probe of each one's run: joined, the planner merged the links with
        -- every run of the evaluation up to the last one, and pass k read k × PASS_RUNS runs.
        WITH chunk AS (
          SELECT er.id, er.tool_calls
            FROM (SELECT l.run_id FROM evaluation_run_traces l
                   WHERE l.evaluation_id = ${evaluationId}::uuid AND l.trace_id IS NULL ORDER BY l.run_id LIMIT ${PASS_RUNS}) l
           CROSS JOIN LATERAL (SELECT id, tool_calls FROM evaluation_runs WHERE id = l.run_id OFFSET 0) er)
        SELECT e.name, e.benchmark, p.tools AS policy, ARRAY(SELECT id::text FROM chunk) AS runs,
               ARRAY(SELECT DISTINCT c->>'tool' FROM chunk CROSS JOIN LATERAL jsonb_array_elements(chunk.tool_calls) AS c) AS tools
          FROM evaluations e JOIN evaluation_effect_policies p ON p.evaluation_id = e.id AND p.version = e.effect_policy_version
         WHERE e.id = ${evaluationId}::uuid
           FOR SHARE OF e`,
    );
  if (!evaluation || evaluation.runs.length === 0) return { seen: 0, linked: 0 };
  const writes = stateChangingTools(evaluation.tools, toolClassifier({ tools: evaluation.policy }));
  const suite = evaluation.benchmark ?? evaluation.name;
  const [pass] = passRow.parse(
    await tx.$queryRaw`
      -- Each run's sequence hashed straight from its calls by call_sequence_hash, the hash imported_trace_hash gives the
      -- trace made of them (a db test holds them equal); the calls are built only for the first run of each sequence
      -- the library lacks (building them for every run, then hashing them, was most of a pass).
      WITH seq AS (
        SELECT er.id, er.task_id,
               call_sequence_hash(jsonb_agg(jsonb_build_array(c->'tool', coalesce(c->'arguments', '{}'::jsonb),
                                                              (c->>'tool') = ANY(${writes}::text[])) ORDER BY i)) AS hash
          FROM unnest(${evaluation.runs}::bigint[]) AS pass(id) JOIN evaluation_runs er ON er.id = pass.id
         CROSS JOIN LATERAL jsonb_array_elements(er.tool_calls) WITH ORDINALITY AS x(c, i)
         WHERE jsonb_typeof(er.tool_calls) = 'array'
         GROUP BY er.id, er.task_id
      ), firsts AS (
        SELECT DISTINCT ON (hash) id, task_id, hash FROM seq ORDER BY hash, id
      ), inserted AS (
        INSERT INTO traces (id, source, benchmark_version, suite, task, kind, prompt, calls, call_count, state_changing_count, content_hash)
        SELECT gen_random_uuid(), 'imported', '',
               CASE WHEN f.task_id ~ ${AGENTDOJO_TASK_ID} THEN split_part(f.task_id, '/', 1) ELSE ${suite} END,
               CASE WHEN f.task_id ~ ${AGENTDOJO_TASK_ID} THEN split_part(f.task_id, '/', 2) ELSE f.task_id END,
               'user', '', made.calls, made.call_count, made.state_changing_count, f.hash
          FROM firsts f JOIN evaluation_runs er ON er.id = f.id
         CROSS JOIN LATERAL (
           SELECT jsonb_agg(jsonb_build_object('function', c->>'tool', 'args', coalesce(c->'arguments', '{}'::jsonb), 'result', NULL,
                                               'error', c->>'error', 'stateChanging', (c->>'tool') = ANY(${writes}::text[])) ORDER BY i) AS calls,
                  count(*) AS call_count, count(*) FILTER (WHERE (c->>'tool') = ANY(${writes}::text[])) AS state_changing_count
             FROM jsonb_array_elements(er.tool_calls) WITH ORDINALITY AS x(c, i)) made
         WHERE NOT EXISTS (SELECT 1 FROM traces t WHERE t.content_hash = f.hash)
        ON CONFLICT (content_hash) DO NOTHING
        RETURNING id, content_hash
      ), trace_of AS (
        SELECT f.hash, coalesce(inserted.id, existing.id) AS trace_id
          FROM firsts f LEFT JOIN inserted ON inserted.content_hash = f.hash LEFT JOIN traces existing ON existing.content_hash = f.hash
      ), linked AS (
        -- Only a link still untraced and the one read: a run re-sent with other calls meanwhile had its link deleted
        -- and a new one made (lib/evaluations/ingest/write-runs.ts), which this update skips and the next pass sees.
        UPDATE evaluation_run_traces l SET trace_id = trace_of.trace_id
          FROM seq JOIN trace_of ON trace_of.hash = seq.hash
         WHERE l.run_id = seq.id AND l.trace_id IS NULL AND trace_of.trace_id IS NOT NULL
        RETURNING l.run_id
      )
      SELECT (SELECT count(*) FROM seq) AS seen, (SELECT count(*) FROM linked) AS linked`,
  );
  return pass;
}

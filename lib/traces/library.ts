// The trace library in PostgreSQL: loading AgentDojo's ground truth (idempotent, on first start),
// listing and reading traces with the imported runs that used them, and resolving a selection of
// traces into the replay's traces. Ground-truth rows come from lib/traces/ground-truth.ts, imported
// ones from lib/evaluations/record-traces/record-traces.ts.
import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { Db } from "../db/prisma";
import { invalid } from "../errors";
import { Prisma } from "../generated/prisma/client";
import { encodeCursor } from "../http/pagination";
import type { Trace } from "../replay/rules/trace";
import { byTaskNumber, groundTruthFileSchema, groundTruthTraces, libraryCallSchema, type LibraryCall } from "./ground-truth";
import type { TraceListQuery, TraceSelection } from "./trace-schemas";
import { countColumn, onlyRowOf } from "../db/rows";

/** AgentDojo's v1.2.1 ground truth, as released (lib/testing/fixtures/agentdojo/README.md says how it was made). */
export const GROUND_TRUTH_FILE = path.resolve("lib/testing/fixtures/agentdojo/ground_truth_v1.2.1.json");
export const GROUND_TRUTH_VERSION = "v1.2.1";

/**
 * The imported runs that used a trace (`t`): an imported trace's are the runs whose call sequence it is
 * (their link in evaluation_run_traces); a ground-truth trace's are the runs whose task id starts with its `suite/task`
 * (an attacked run's goes on with its attack and injection task), whatever their evaluation's
 * free-text benchmark says: that shape is AgentDojo's (lib/evaluations/record-traces/record-traces.ts files them so).
 */
const LINKED_RUNS = Prisma.sql`evaluation_runs er JOIN evaluations e ON e.id = er.evaluation_id`;
/** Kept apart per source so that each count uses its index (evaluation_run_traces_trace_idx, or the user task's expression: migration 20261204110000_user_task_index). */
function linkedTo(imported: boolean, t: { id: Prisma.Sql; suite: Prisma.Sql; task: Prisma.Sql }): Prisma.Sql {
  return imported
    ? Prisma.sql`er.id IN (SELECT l.run_id FROM evaluation_run_traces l WHERE l.trace_id = ${t.id})`
    : Prisma.sql`split_part(er.task_id, '/', 1) || '/' || split_part(er.task_id, '/', 2) = ${t.suite} || '/' || ${t.task}`;
}

/**
 * Loads the ground truth into the library once: a later start (or a second process racing it) finds
 * the version loaded and changes nothing. Returns how many traces it added.
 */
export async function loadGroundTruthTraces(db: Db, file = GROUND_TRUTH_FILE): Promise<number> {
  const loaded = () => db.trace.count({ where: { source: "ground_truth", benchmarkVersion: GROUND_TRUTH_VERSION } });
  if ((await loaded()) > 0) return 0;
  // Read outside the transaction: on a loaded machine parsing half a megabyte inside it outlasted Prisma's 5 s.
  const parsed = groundTruthFileSchema.parse(JSON.parse(readFileSync(file, "utf8")));
  if (parsed.benchmark_version !== GROUND_TRUTH_VERSION)
    throw new Error(`${file} holds benchmark ${parsed.benchmark_version}, expected ${GROUND_TRUTH_VERSION}`);
  const rows = groundTruthTraces(parsed).map((r) => ({ ...r, calls: r.calls as unknown as Prisma.InputJsonValue }));
  return db.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${0x626c_7472})`; // "bltr": one loader at a time
      if ((await tx.trace.count({ where: { source: "ground_truth", benchmarkVersion: GROUND_TRUTH_VERSION } })) > 0) return 0;
      return (await tx.trace.createMany({ data: rows, skipDuplicates: true })).count;
    },
    { maxWait: 30_000, timeout: 60_000 },
  );
}

const int = z.coerce.number().int();
const listRow = z.object({
  id: z.string(),
  source: z.string(),
  benchmark_version: z.string(),
  suite: z.string(),
  task: z.string(),
  kind: z.enum(["user", "injection"]),
  task_number: int,
  prompt: z.string(),
  call_count: int,
  state_changing_count: int,
  writes: z.array(z.string()),
  linked_runs: int,
  content_hash: z.string().nullable(),
});

export interface TraceListItem {
  id: string;
  source: string;
  benchmarkVersion: string;
  suite: string;
  task: string;
  kind: "user" | "injection";
  prompt: string;
  callCount: number;
  stateChangingCount: number;
  /** The state-changing calls' functions, in trace order. */
  writes: string[];
  /** The imported runs that used it: an imported trace's runs, or the imported AgentDojo runs of a ground-truth trace's task. */
  linkedRuns: number;
  /** An imported trace's SHA-256 of its ordered (function, arguments) sequence; null for ground truth. */
  contentHash: string | null;
}

export interface TracePage {
  traces: TraceListItem[];
  nextCursor: string | null;
}

export interface SuiteCount {
  suite: string;
  userTasks: number;
  injectionTasks: number;
  withWrites: number;
}

const PAGE_ROW = { id: Prisma.sql`page.id`, suite: Prisma.sql`page.suite`, task: Prisma.sql`page.task` };

/** The task's number for ordering (user_task_2 before user_task_10). */
const TASK_NUMBER = Prisma.sql`coalesce(substring(task from '_([0-9]+)$')::int, -1)`;

/** One page of traces by suite, kind (user tasks first) and task number, with their linked-run counts aggregated in PostgreSQL. */
export async function listTraces(
  db: Db,
  query: Pick<TraceListQuery, "source" | "suite" | "kind" | "task" | "writes" | "cursor" | "limit">,
): Promise<TracePage> {
  const conditions: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (query.source) conditions.push(Prisma.sql`source = ${query.source}`);
  if (query.suite) conditions.push(Prisma.sql`suite = ${query.suite}`);
  if (query.kind) conditions.push(Prisma.sql`kind = ${query.kind}`);
  if (query.task) conditions.push(Prisma.sql`(task = ${query.task} OR suite || '/' || task = ${query.task})`);
  if (query.writes === "with") conditions.push(Prisma.sql`state_changing_count > 0`);
  if (query.writes === "without") conditions.push(Prisma.sql`state_changing_count = 0`);
  if (query.cursor) {
    const [suite, kind, n, task, id] = query.cursor;
    // kind descending puts user before injection.
    conditions.push(
      Prisma.sql`(suite > ${suite} OR (suite = ${suite} AND (kind < ${kind} OR (kind = ${kind} AND (${TASK_NUMBER}, task, id) > (${n}, ${task}, ${id}::uuid)))))`,
    );
  }
  const rows = await db.$queryRaw`
    WITH page AS (
      SELECT id, source, benchmark_version, suite, task, kind, ${TASK_NUMBER} AS task_number, prompt, call_count, state_changing_count, calls, content_hash
        FROM traces WHERE ${Prisma.join(conditions, " AND ")}
       ORDER BY suite, kind DESC, task_number, task, id LIMIT ${query.limit + 1}
    )
    SELECT page.id::text AS id, source, benchmark_version, suite, task, kind, task_number, prompt, call_count, state_changing_count, content_hash,
           ARRAY(SELECT c->>'function' FROM jsonb_array_elements(page.calls) WITH ORDINALITY AS x(c, i) WHERE (c->>'stateChanging')::boolean ORDER BY i) AS writes,
           CASE WHEN source = 'imported' THEN (SELECT count(*) FROM ${LINKED_RUNS} WHERE ${linkedTo(true, PAGE_ROW)})
                ELSE (SELECT count(*) FROM ${LINKED_RUNS} WHERE ${linkedTo(false, PAGE_ROW)}) END AS linked_runs
      FROM page ORDER BY suite, kind DESC, task_number, task, id`;
  const parsed = z.array(listRow).parse(rows);
  const shown = parsed.slice(0, query.limit);
  const last = shown.at(-1);
  return {
    traces: shown.map((r) => ({
      id: r.id,
      source: r.source,
      benchmarkVersion: r.benchmark_version,
      suite: r.suite,
      task: r.task,
      kind: r.kind,
      prompt: r.prompt,
      callCount: r.call_count,
      stateChangingCount: r.state_changing_count,
      writes: r.writes,
      linkedRuns: r.linked_runs,
      contentHash: r.content_hash,
    })),
    nextCursor: parsed.length > query.limit && last ? encodeCursor([last.suite, last.kind, last.task_number, last.task, last.id]) : null,
  };
}

/** Per suite: its ground-truth user and injection tasks, and how many have at least one state-changing call (the replayable ones). */
export async function suiteCounts(db: Db): Promise<SuiteCount[]> {
  const rows = await db.$queryRaw`
    SELECT suite, count(*) FILTER (WHERE kind = 'user') AS user_tasks, count(*) FILTER (WHERE kind = 'injection') AS injection_tasks,
           count(*) FILTER (WHERE kind = 'user' AND state_changing_count > 0) AS with_writes
      FROM traces WHERE source = 'ground_truth' GROUP BY suite ORDER BY suite`;
  return z
    .array(z.object({ suite: z.string(), user_tasks: int, injection_tasks: int, with_writes: int }))
    .parse(rows)
    .map((r) => ({ suite: r.suite, userTasks: r.user_tasks, injectionTasks: r.injection_tasks, withWrites: r.with_writes }));
}

export interface LinkedRun {
  id: string;
  evaluationId: string;
  evaluationName: string;
  externalId: string;
  endpointLabel: string | null;
  finality: string;
  toolCalls: number;
}

export interface TraceDetail extends Omit<TraceListItem, "linkedRuns" | "writes"> {
  calls: LibraryCall[];
  /** The imported runs that used it (newest first, at most LINKED_RUNS_SHOWN) and how many there are. */
  linkedRuns: { total: number; runs: LinkedRun[] };
  /** Experiments that replayed this trace, newest first. */
  experiments: Array<{ id: string; name: string | null; state: string; createdAt: Date }>;
}

export const LINKED_RUNS_SHOWN = 100;

/** One trace with its calls, the imported runs that used it and the experiments that replayed it; null when there is none. */
export async function getTrace(db: Db, id: string): Promise<TraceDetail | null> {
  const trace = await db.trace.findUnique({ where: { id } });
  if (!trace) return null;
  const taskRef = `${trace.suite}/${trace.task}`;
  const linked = linkedTo(trace.source === "imported", {
    id: Prisma.sql`${trace.id}::uuid`,
    suite: Prisma.sql`${trace.suite}`,
    task: Prisma.sql`${trace.task}`,
  });
  const [total, runs, experiments] = await Promise.all([
    db.$queryRaw`SELECT count(*) AS n FROM ${LINKED_RUNS} WHERE ${linked}`,
    db.$queryRaw`
      SELECT er.id::text AS id, e.id::text AS evaluation_id, e.name AS evaluation_name, er.external_id, er.endpoint_label, er.finality,
             coalesce(jsonb_array_length(er.tool_calls), 0) AS tool_calls
        FROM ${LINKED_RUNS} WHERE ${linked} ORDER BY er.id DESC LIMIT ${LINKED_RUNS_SHOWN}`,
    db.$queryRaw`
      SELECT x.id::text AS id, x.name, x.state, x.created_at FROM experiments x
       WHERE EXISTS (SELECT 1 FROM runs r WHERE r.experiment_id = x.id AND r.task_id = ${taskRef})
       ORDER BY x.created_at DESC LIMIT 50`,
  ]);
  return {
    id: trace.id,
    source: trace.source,
    benchmarkVersion: trace.benchmarkVersion,
    suite: trace.suite,
    task: trace.task,
    kind: trace.kind as "user" | "injection",
    prompt: trace.prompt,
    callCount: trace.callCount,
    stateChangingCount: trace.stateChangingCount,
    contentHash: trace.contentHash,
    calls: z.array(libraryCallSchema).parse(trace.calls),
    linkedRuns: {
      total: onlyRowOf(z.object({ n: countColumn }), total).n,
      runs: z
        .array(
          z.object({
            id: z.string(),
            evaluation_id: z.string(),
            evaluation_name: z.string(),
            external_id: z.string(),
            endpoint_label: z.string().nullable(),
            finality: z.string(),
            tool_calls: int,
          }),
        )
        .parse(runs)
        .map((r) => ({
          id: r.id,
          evaluationId: r.evaluation_id,
          evaluationName: r.evaluation_name,
          externalId: r.external_id,
          endpointLabel: r.endpoint_label,
          finality: r.finality,
          toolCalls: r.tool_calls,
        })),
    },
    experiments: z
      .array(z.object({ id: z.string(), name: z.string().nullable(), state: z.string(), created_at: z.date() }))
      .parse(experiments)
      .map((x) => ({ id: x.id, name: x.name, state: x.state, createdAt: x.created_at })),
  };
}

/** A library trace as the replay takes it: its calls in order, `suite/task` as the task id. */
export function replayTraceOf(row: { suite: string; task: string; calls: unknown }): Trace {
  const calls = z.array(libraryCallSchema).parse(row.calls);
  return {
    suite: row.suite as Trace["suite"],
    taskId: `${row.suite}/${row.task}`,
    calls: calls.map((c) => ({ function: c.function, args: c.args, result: c.result, stateChanging: c.stateChanging })),
  };
}

/**
 * The traces a selection names, in library order, as the replay takes them. Every one must exist and
 * have at least one state-changing call; otherwise a 400 names the field and the trace, and nothing is
 * created.
 */
export async function resolveTraceSelection(db: Db, selection: TraceSelection): Promise<Trace[]> {
  const order = [{ suite: "asc" as const }, { task: "asc" as const }];
  let rows;
  if ("suite" in selection) {
    rows = await db.trace.findMany({
      where: {
        source: "ground_truth",
        benchmarkVersion: GROUND_TRUTH_VERSION,
        suite: selection.suite,
        kind: "user",
        stateChangingCount: { gt: 0 },
      },
      orderBy: order,
    });
    if (rows.length === 0)
      throw invalid(
        `traceSelection.suite: the library holds no ground-truth user task of ${selection.suite} with a state-changing call`,
        "traceSelection.suite",
      );
  } else if ("tasks" in selection) {
    const wanted = selection.tasks.map((t) => ({ suite: t.slice(0, t.indexOf("/")), task: t.slice(t.indexOf("/") + 1) }));
    rows = await db.trace.findMany({
      where: { source: "ground_truth", benchmarkVersion: GROUND_TRUTH_VERSION, OR: wanted },
      orderBy: order,
    });
    const found = new Set(rows.map((r) => `${r.suite}/${r.task}`));
    const missing = selection.tasks.filter((t) => !found.has(t));
    if (missing.length) throw invalid(`traceSelection.tasks: no ground-truth trace for ${missing.join(", ")}`, "traceSelection.tasks");
  } else {
    rows = await db.trace.findMany({ where: { id: { in: selection.ids } }, orderBy: order });
    const found = new Set(rows.map((r) => r.id));
    const missing = selection.ids.filter((id) => !found.has(id));
    if (missing.length) throw invalid(`traceSelection.ids: no trace ${missing.join(", ")}`, "traceSelection.ids");
  }
  const field = "suite" in selection ? "traceSelection.suite" : "tasks" in selection ? "traceSelection.tasks" : "traceSelection.ids";
  const readOnly = rows.filter((r) => r.stateChangingCount === 0);
  if (readOnly.length)
    throw invalid(
      `${field}: ${readOnly.map((r) => `${r.suite}/${r.task}`).join(", ")} makes no state-changing call, so there is nothing to replay`,
      field,
    );
  return rows.sort((a, b) => (a.suite === b.suite ? byTaskNumber(a.task, b.task) : a.suite < b.suite ? -1 : 1)).map(replayTraceOf);
}

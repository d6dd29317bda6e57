// The OTLP receiver's store (docs/otel.md): a request's traces into the live-run store (lib/evaluations/live/),
// so a trace is a live run under the same rules as one sent through the live-run routes. A trace
// seen for the first time whose run is new takes the quick way: its events admitted against an empty
// run (pure), its run opened with its events and spans kept whole on it (lib/evaluations/live/first-batch.ts)
// in one statement with every other such trace's, and, when it carries its score, its record stored
// with theirs through one ingestion batch, last (that batch holds the evaluation's audit lock to the
// commit). A trace seen before (or naming a run opened otherwise) goes the live-run routes' way, one
// run at a time. A span that cannot be used is rejected with its reason; a span sent again adds
// nothing. The whole request is one transaction, answered once it has committed.
import { z } from "zod";
import { canonicalJson } from "../../content-hash";
import type { Db } from "../../db/prisma";
import { isoTime } from "../../format/time";
import { packedText, packTexts } from "../../db/packed-texts";
import { rowsOf } from "../../db/rows";
import type { CopyTx } from "../../db/sql-transaction";
import { DomainError, invalid, notFound } from "../../errors";
import { Prisma } from "../../generated/prisma/client";
import { createEvaluation, EvaluationNameTakenError } from "../manage/create-evaluation";
import { storeToolSuggestions, toolSuggestionSchema } from "../tool-suggestions";
import { writeRunsIn } from "../ingest/write-runs";
import { validRun } from "../ingest/validate";
import { expireLiveRunJob } from "../live/live-run-job";
import { inTransaction, lockOpenedRun } from "../live/run-lock";
import { recordEventsIn } from "../live/record-live-events";
import { scoreIn } from "../live/score-live-run";
import type { LiveRunRow } from "../live/run-record";
import { openLiveRunBodySchema, type ScoreLiveRunBody } from "../live/live-run-schemas";
import { admitEvents, liveRunRecord, type LiveOutcome } from "../live/timeline";
import { createEvaluationBodySchema, labelMapSchema, type CreateEvaluationBody, type LabelMap } from "../evaluation-requests";
import type { RunRecord } from "../run-record-schema";
import { ATTR, EVENT } from "./conventions";
import { planTraces, type SpanRefusal, type TracePlan } from "./mapping";
import { readScore } from "./scores";
import type { OtlpResourceSpans } from "./spans";

export interface ReceivedTraces {
  /** Traces taken as runs. */
  runs: number;
  rejected: SpanRefusal[];
}

interface Evaluation {
  id: string;
  scoreThreshold: number | null;
  labelMap: LabelMap | null;
  timeoutSeconds: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const evaluationRow = z.object({
  id: z.string(),
  score_threshold: z.number().nullable(),
  label_map: labelMapSchema.nullable(),
  timeout: z.number(),
});

async function evaluationBy(db: Db, where: { id: string } | { name: string }): Promise<Evaluation | null> {
  const rows = rowsOf(
    evaluationRow,
    "id" in where
      ? await db.$queryRaw`SELECT id::text, score_threshold, label_map, live_run_timeout_seconds AS timeout FROM evaluations WHERE id = ${where.id}::uuid`
      : await db.$queryRaw`SELECT id::text, score_threshold, label_map, live_run_timeout_seconds AS timeout FROM evaluations WHERE name = ${where.name}`,
  );
  const row = rows[0];
  return row ? { id: row.id, scoreThreshold: row.score_threshold, labelMap: row.label_map, timeoutSeconds: row.timeout } : null;
}

/**
 * The evaluation a name creates, as the API would take it: a name the API refuses (too long) is a 400
 * naming the attribute; a harness (the resource's service.name) the API refuses is left out.
 */
function creationOf(name: string, harness: string | undefined): CreateEvaluationBody {
  const named = createEvaluationBodySchema.shape.name.safeParse(name);
  if (!named.success) throw invalid(`${ATTR.evaluation}: ${named.error.issues[0]!.message}`, ATTR.evaluation);
  const harnessTaken = harness !== undefined && createEvaluationBodySchema.shape.harness.safeParse(harness).success;
  return { name: named.data, ...(harnessTaken && { harness }) };
}

/** The evaluations the request names: every id must exist and every name be one the API takes (else 404 or 400, before anything is stored); a name is created on first use. */
async function resolveEvaluations(db: Db, traces: readonly TracePlan[], createdById: string): Promise<Map<string, Evaluation>> {
  const refs = new Map<string, string | undefined>();
  for (const trace of traces) if (!refs.has(trace.evaluation)) refs.set(trace.evaluation, trace.harness);
  const resolved = new Map<string, Evaluation>();
  const creations = new Map<string, CreateEvaluationBody>();
  for (const [ref, harness] of refs)
    if (UUID.test(ref)) {
      const found = await evaluationBy(db, { id: ref });
      if (!found) throw notFound(`evaluation ${ref} (the resource attribute boundary_lab.evaluation)`, "boundary_lab.evaluation");
      resolved.set(ref, found);
    } else creations.set(ref, creationOf(ref, harness));
  for (const [ref, creation] of creations) {
    let found = await evaluationBy(db, { name: ref });
    if (!found) {
      try {
        await createEvaluation(db, creation, createdById);
      } catch (error) {
        if (!(error instanceof EvaluationNameTakenError)) throw error; // created meanwhile by another request
      }
      found = await evaluationBy(db, { name: ref });
    }
    resolved.set(ref, found!);
  }
  return resolved;
}

/** A score's body as the outcome a live run's record is made with: a result no label map could read stores the run unscored. */
const liveOutcomeOf = (score: ScoreLiveRunBody): LiveOutcome =>
  score.unscoredReason !== undefined
    ? { unscoredReason: score.unscoredReason }
    : { scoredAtMs: Date.parse(score.at!), endpointLabel: score.endpointLabel!, score: score.score, threshold: score.threshold };

/**
 * Stores the request's spans by resource; answers how many traces became runs and every span rejected.
 * The whole request is one transaction (an evaluation named for the first time is created before it:
 * a retry finds it), so its answer comes only once everything it stored has committed.
 */
export async function receiveTraces(db: Db, createdById: string, batch: readonly OtlpResourceSpans[]): Promise<ReceivedTraces> {
  const plan = planTraces(batch);
  const evaluations = await resolveEvaluations(db, plan.traces, createdById);
  const byEvaluation = new Map<string, TracePlan[]>();
  for (const trace of plan.traces) {
    const id = evaluations.get(trace.evaluation)!.id;
    const traces = byEvaluation.get(id);
    if (traces) traces.push(trace);
    else byEvaluation.set(id, [trace]);
  }
  // In one order of evaluations, so that two requests naming the same ones cannot deadlock on their locks.
  const ordered = [...byEvaluation].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const stored = await inTransaction(db, async (tx) => {
    const refusals: SpanRefusal[][] = [];
    for (const [, traces] of ordered) {
      const evaluation = evaluations.get(traces[0]!.evaluation)!;
      refusals.push(await storeTraces(tx, evaluation, traces));
      // As the MCP recorder does: a class to suggest for the tools the spans showed acknowledged before applied (no figure changes until an editor accepts it).
      const asyncTools = [...new Set(traces.flatMap((t) => t.asyncTools))].filter(
        (tool) => toolSuggestionSchema.shape.tool.safeParse(tool).success,
      );
      if (asyncTools.length > 0)
        await storeToolSuggestions(tx, evaluation.id, {
          source: `otel:${traces[0]!.harness ?? "otlp"}`.slice(0, 200),
          tools: asyncTools.map((tool) => ({
            tool,
            suggestedClass: "async_handle",
            reason: "a span said its call was acknowledged before it was applied (boundary_lab.effect.status pending, with a handle)",
          })),
        });
    }
    return refusals;
  });
  // flat(), not push(...): a trace of 100,000 refused spans is more arguments than a call takes.
  return { runs: plan.traces.length, rejected: [plan.rejected, ...stored].flat() };
}

/** Every span of the trace refused for one reason. */
function refuseTrace(rejected: SpanRefusal[], trace: TracePlan, reason: string): void {
  for (const span of trace.spans) rejected.push({ spanId: span.spanId, reason });
}

/** A trace's spans as live_run_spans' columns (but the run's id): the rows, or the first batch's array (first-batch.ts). */
const spanRowsOf = (trace: TracePlan) =>
  trace.spans.map((span) => ({
    span_id: span.spanId,
    trace_id: trace.traceId,
    parent_span_id: span.parentSpanId,
    name: span.name,
    start_at: isoTime(span.startMs),
    end_at: isoTime(span.endMs),
    status_code: span.statusCode,
    attributes: span.attributes,
  }));

/** Spans come in any order: a status of an effect whose tool span has not come yet is kept for it (admitEvents). */
const HOLD_STATUSES = { holdStatusesOfUnknownEffects: true } as const;
/** The span an event came from: its id is `<spanId>.<which>` (mapping.ts). */
const spanIdOfEvent = (eventId: string) => eventId.split(".")[0]!;

const runName = (trace: TracePlan) => trace.runId ?? trace.traceId;
const taskOf = (trace: TracePlan) => trace.taskId ?? trace.harness ?? "otel";

async function storeTraces(tx: CopyTx, evaluation: Evaluation, given: readonly TracePlan[]): Promise<SpanRefusal[]> {
  const rejected: SpanRefusal[] = [];
  // A run's name and task as the live-run routes take them: a trace that cannot be one is rejected whole.
  const traces = given.filter((trace) => {
    const open = openLiveRunBodySchema.safeParse({ externalId: runName(trace), taskId: taskOf(trace) });
    if (open.success) return true;
    const issue = open.error.issues[0]!;
    refuseTrace(
      rejected,
      trace,
      `trace ${trace.traceId}: ${issue.path[0] === "externalId" ? "boundary_lab.run.id" : "its task"}: ${issue.message}`,
    );
    return false;
  });
  await tx.$queryRaw`SELECT 1 FROM evaluations WHERE id = ${evaluation.id}::uuid FOR SHARE`;
  // One request at a time per trace (exporters send a trace's spans in several requests, at once):
  // the second finds the run the first made, rather than make another. Taken in one order, so two
  // requests sharing traces cannot deadlock on them.
  await tx.$queryRaw`
    SELECT count(pg_advisory_xact_lock(k)) FROM (
      SELECT hashtextextended(${evaluation.id}::text || ':' || t, 0) AS k FROM unnest(${traces.map((t) => t.traceId)}::text[]) AS t ORDER BY 1
    ) AS keys`;
  const known = new Map(
    rowsOf(
      z.object({ trace_id: z.string(), external_id: z.string() }),
      await tx.$queryRaw`
        SELECT o.trace_id, r.external_id FROM otel_traces o JOIN live_runs r ON r.id = o.live_run_id
         WHERE o.evaluation_id = ${evaluation.id}::uuid AND o.trace_id = ANY(${traces.map((t) => t.traceId)}::text[])`,
    ).map((r) => [r.trace_id, r.external_id]),
  );
  const unseen = traces.filter((t) => !known.has(t.traceId));
  const scores = new Map(traces.filter((t) => t.score).map((t) => [t, readScore(t.score!, evaluation, t.labelMap)]));
  const scoreOf = (trace: TracePlan) => scores.get(trace);

  // The first trace of each new run's name takes the quick way: its events admitted against an empty run
  // (pure), the run opened (and scored, when the trace says so) with every other such run in one
  // statement, its events and spans kept whole on it (first-batch.ts). Another trace naming the same run finds it below.
  const firstOfName = new Map<string, TracePlan>();
  for (const trace of unseen) if (!firstOfName.has(runName(trace))) firstOfName.set(runName(trace), trace);
  const candidates = [...firstOfName.values()].map((trace) => ({
    trace,
    admission: admitEvents(
      {
        startedAtMs: trace.startedAtMs,
        effects: new Map(),
        statuses: new Map(),
        counts: { effect_requested: 0, touch: 0, reset: 0, model_call: 0 },
        storedById: new Map(),
      },
      trace.events.map((e) => e.event),
      HOLD_STATUSES,
    ),
  }));
  // Each run's events and spans as JSON text, packed as bytes (packed-texts.ts): run n's are texts 2n - 1 and 2n.
  // As text PostgreSQL copies them; as json it parsed them all again.
  const newRuns = candidates.map(({ trace, admission }) => ({
    external_id: runName(trace),
    trace_id: trace.traceId,
    task_id: taskOf(trace),
    started_at: isoTime(trace.startedAtMs),
    outcome: scoreOf(trace) ?? null,
    scored_at: scoreOf(trace)?.endpointLabel === undefined ? null : scoreOf(trace)!.at,
    clock_skew_events: admission.flagged.length,
  }));
  const firstBatches = packTexts(
    candidates.flatMap(({ trace, admission }) => [
      JSON.stringify(admission.accepted.map((a) => a.event)),
      JSON.stringify(spanRowsOf(trace)),
    ]),
  );
  const created = new Map(
    rowsOf(
      z.object({ id: z.string(), external_id: z.string(), expires_at: z.date() }),
      // Prepared: planning it cost more than running it. Each new run's trace is linked to it in the same statement.
      await tx.$queryPrepared(
        "otel-open-runs",
        Prisma.sql`
        WITH packed AS (${firstBatches}),
        x AS (
          SELECT * FROM ROWS FROM (json_to_recordset(${JSON.stringify(newRuns)}::json)
                          AS (external_id text, trace_id text, task_id text, started_at timestamptz, outcome jsonb, scored_at timestamptz,
                              clock_skew_events int))
                        WITH ORDINALITY AS x(external_id, trace_id, task_id, started_at, outcome, scored_at, clock_skew_events, n)
        ), opened AS (
        INSERT INTO live_runs (evaluation_id, external_id, task_id, started_at, expires_at, timeout_seconds, state, outcome, scored_at, closed_at,
                               clock_skew_events, first_events, first_spans)
        SELECT ${evaluation.id}::uuid, x.external_id, x.task_id, x.started_at, now() + ${evaluation.timeoutSeconds}::int * interval '1 second',
               ${evaluation.timeoutSeconds}::int, CASE WHEN x.outcome IS NULL THEN 'open' WHEN x.outcome ? 'unscoredReason' THEN 'unscored' ELSE 'scored' END,
               x.outcome, x.scored_at,
               CASE WHEN x.outcome IS NULL THEN NULL ELSE now() END, x.clock_skew_events, ${packedText("2 * x.n - 1")}, ${packedText("2 * x.n")}
          FROM x, packed
         WHERE NOT EXISTS (SELECT 1 FROM evaluation_runs WHERE evaluation_id = ${evaluation.id}::uuid AND external_id = x.external_id)
        ON CONFLICT (evaluation_id, external_id) DO NOTHING
        RETURNING id, external_id, expires_at
        ), linked AS (
        INSERT INTO otel_traces (evaluation_id, trace_id, live_run_id)
        SELECT ${evaluation.id}::uuid, x.trace_id, opened.id FROM opened JOIN x ON x.external_id = opened.external_id
        ON CONFLICT DO NOTHING
        )
        SELECT id::text, external_id, expires_at FROM opened`,
      ),
    ).map((r) => [r.external_id, r]),
  );
  const fresh = candidates.flatMap((c) => {
    const run = created.get(runName(c.trace));
    return run ? [{ ...c, run }] : [];
  });
  const records: { runId: string; record: RunRecord }[] = [];
  for (const { trace, admission, run } of fresh) {
    for (const error of admission.errors) rejected.push({ spanId: trace.events[error.index]!.spanId, reason: error.message });
    const score = scoreOf(trace);
    if (score)
      records.push({
        runId: run.id,
        record: liveRunRecord(
          { externalId: run.external_id, taskId: taskOf(trace), groupId: null, attempt: null, startedAtMs: trace.startedAtMs },
          admission.accepted.map((a) => a.event),
          liveOutcomeOf(score),
        ),
      });
    else await expireLiveRunJob.enqueue(tx, { liveRunId: run.id }, run.expires_at);
  }
  // Traces seen before, or naming a run that exists: the live-run routes' way, one run at a time.
  const runOf = new Map<TracePlan, string>(fresh.map(({ trace, run }) => [trace, run.id]));
  for (const trace of traces) {
    if (runOf.has(trace)) continue;
    let name = known.get(trace.traceId) ?? runName(trace);
    // A run first named by its trace id takes the boundary_lab.run.id a later batch gives it, while it is open and the name is free;
    // likewise the task a later batch names (spans end children first: the agent's own span, which names both, often comes last).
    const rename = name === trace.traceId && trace.runId !== undefined && trace.runId !== name ? trace.runId : null;
    const renamed = rowsOf(
      z.object({ external_id: z.string() }),
      await tx.$queryRaw`
        UPDATE live_runs r
           SET external_id = CASE WHEN ${rename}::text IS NULL
                                    OR EXISTS (SELECT 1 FROM live_runs WHERE evaluation_id = ${evaluation.id}::uuid AND external_id = ${rename})
                                    OR EXISTS (SELECT 1 FROM evaluation_runs WHERE evaluation_id = ${evaluation.id}::uuid AND external_id = ${rename})
                                  THEN r.external_id ELSE ${rename} END,
               task_id = coalesce(${trace.taskId ?? null}::text, r.task_id)
         WHERE r.evaluation_id = ${evaluation.id}::uuid AND r.external_id = ${name} AND r.state = 'open'
        RETURNING r.external_id`,
    );
    if (renamed[0]) name = renamed[0].external_id;
    let row: LiveRunRow;
    try {
      row = await lockOpenedRun(tx, evaluation.id, name);
    } catch (error) {
      if (!(error instanceof DomainError) || error.kind !== "not_found") throw error;
      refuseTrace(rejected, trace, `run ${name} was ingested into this evaluation already: it is not a live run`);
      continue;
    }
    runOf.set(trace, row.id);
    const answer = await recordEventsIn(
      tx,
      evaluation.id,
      row,
      trace.events.map((e) => e.event),
      HOLD_STATUSES,
    );
    for (const error of answer.errors) rejected.push({ spanId: trace.events[error.index]!.spanId, reason: error.message });
    for (const dropped of answer.dropped ?? []) {
      const spanId = spanIdOfEvent(dropped.eventId);
      rejected.push({
        spanId,
        reason: `the ${EVENT.effectStatus} event ${dropped.eventId} of span ${spanId}, kept until effect ${dropped.effectId}'s span came, is dropped: ${dropped.message}`,
      });
    }
    const score = scoreOf(trace);
    if (score && row.state === "open") await scoreIn(tx, evaluation.id, row, score);
    else if (score && canonicalJson(row.outcome) !== canonicalJson(score))
      rejected.push({ spanId: trace.score!.spanId, reason: `run ${row.external_id} is ${row.state} already: its first score stands` });
  }

  // Which run each later trace is (a new run's trace was linked as it opened), and its spans for the run page's timeline.
  const freshSet = new Set(fresh.map((c) => c.trace));
  const linked = traces.filter((t) => runOf.has(t) && !known.has(t.traceId) && !freshSet.has(t));
  if (linked.length > 0)
    await tx.$executeRaw`
    INSERT INTO otel_traces (evaluation_id, trace_id, live_run_id)
    SELECT ${evaluation.id}::uuid, x.trace_id, x.live_run_id
      FROM unnest(${linked.map((t) => t.traceId)}::text[], ${linked.map((t) => runOf.get(t)!)}::bigint[]) AS x(trace_id, live_run_id)
    ON CONFLICT DO NOTHING`;
  const later = traces
    .filter((t) => runOf.has(t) && !freshSet.has(t))
    .flatMap((trace) => spanRowsOf(trace).map((row) => ({ live_run_id: runOf.get(trace)!, ...row })));
  if (later.length > 0)
    await tx.$executeRaw`
      INSERT INTO live_run_spans (live_run_id, span_id, trace_id, parent_span_id, name, start_at, end_at, status_code, attributes)
      SELECT x.* FROM json_to_recordset(${JSON.stringify(later)}::json)
             AS x(live_run_id bigint, span_id text, trace_id text, parent_span_id text, name text, start_at timestamptz, end_at timestamptz,
                  status_code int, attributes jsonb)
      ON CONFLICT DO NOTHING`;
  // The new runs' records last: from here to the commit the evaluation's audit lock is held, and its other requests wait.
  // A run another trace of this request added events to above is stored already, with all of them (recordEventsIn).
  const addedTo = new Set(traces.filter((t) => runOf.has(t) && !freshSet.has(t)).map((t) => runOf.get(t)!));
  const stored = records.filter((r) => !addedTo.has(r.runId));
  if (stored.length > 0)
    await writeRunsIn(
      tx,
      evaluation.id,
      stored.map(({ record }, i) => validRun(i, record)),
      "job",
    );
  return rejected;
}

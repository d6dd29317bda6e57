// Live runs in PostgreSQL (issue 23 §1): opened, sent events, scored; the rules are timeline.ts's.
// Each call is one transaction holding the run's row: once the run is scored (or stored unscored)
// its record is remade from every event and stored through ingestion's own step (storeBatchIn) in
// that same transaction, so a crash at any point leaves the events and the audited run in step.
import { z } from "zod";
import { canonicalJson } from "../../content-hash";
import { poolOf, type Db } from "../../db/prisma";
import { retryOnTransactionConflict } from "../../db/isolate-refusals";
import { countColumn, onlyRowOf, rowsOf } from "../../db/rows";
import { unstorableTextReason } from "../../http/storable";
import { sqlTransaction, type CopyTx, type SqlClient } from "../../db/sql-transaction";
import { conflict, DomainError, notFound } from "../../errors";
import { storeBatchIn } from "../ingest/write-runs";
import { validRun } from "../ingest/validate";
import { FINALITIES, type RunRecord, type StatusAtScoring, STATUSES_AT_SCORING } from "../schemas";
import { moveFirstBatch } from "./first-batch";
import { enqueueExpireLiveRunJob } from "./live-run-job";
import { awaitRecorders } from "./recorders";
import {
  liveEventSchema,
  LIVE_RUN_STATES,
  scoreLiveRunBodySchema,
  type LiveEvent,
  type LiveEventsAnswer,
  type LiveRunState,
  type OpenLiveRunAnswer,
  type OpenLiveRunBody,
  type ScoreLiveRunAnswer,
  type ScoreLiveRunBody,
} from "./live-run-schemas";
import {
  admitEvents,
  liveRunRecord,
  type AdmissionOptions,
  type HeldStatus,
  type LiveOutcome,
  type LiveRunHead,
  type StatusPoint,
} from "./timeline";

const liveRunRow = z.object({
  id: z.string(),
  external_id: z.string(),
  task_id: z.string(),
  group_id: z.string().nullable(),
  attempt: z.number().nullable(),
  started_at: z.date(),
  opened_at: z.date(),
  state: z.enum(LIVE_RUN_STATES),
  expires_at: z.date(),
  timeout_seconds: z.number(),
  scored_at: z.date().nullable(),
  outcome: scoreLiveRunBodySchema.nullable(),
  clock_skew_events: z.number(),
  due: z.boolean(),
});
export type LiveRunRow = z.output<typeof liveRunRow>;

const head = (row: LiveRunRow): LiveRunHead => ({
  externalId: row.external_id,
  taskId: row.task_id,
  groupId: row.group_id,
  attempt: row.attempt,
  startedAtMs: row.started_at.getTime(),
});

/** The transaction every write of a live run runs in, run again when PostgreSQL aborted it for a conflict. */
export const inTransaction = <T>(db: Db, work: (tx: CopyTx) => Promise<T>) =>
  retryOnTransactionConflict(() => sqlTransaction(poolOf(db), work));

/**
 * inTransaction for a write that may find its run overdue: the refusal `work` returns is thrown only
 * once the transaction has committed, so the expiry it stored stands (thrown inside, it would be rolled back with it).
 */
async function inTransactionRefusingAfterCommit<T>(db: Db, work: (tx: CopyTx) => Promise<T | DomainError>): Promise<T> {
  const answer = await inTransaction(db, work);
  if (answer instanceof DomainError) throw answer;
  return answer;
}

const expiredReason = (row: Pick<LiveRunRow, "timeout_seconds">) =>
  `not scored within ${row.timeout_seconds} s of opening (the evaluation's liveRunTimeoutSeconds)`;

/**
 * Opens a run: `created` false when it is open already (a retried open), so a harness may re-send it.
 * 404 for an unknown evaluation; 409 when the run was ingested, is closed, or is open for another task.
 */
export async function openLiveRun(db: Db, evaluationId: string, body: OpenLiveRunBody): Promise<OpenLiveRunAnswer> {
  return inTransactionRefusingAfterCommit(db, async (tx) => {
    const evaluation = rowsOf(
      z.object({ timeout: z.number() }),
      await tx.$queryRaw`SELECT live_run_timeout_seconds AS timeout FROM evaluations WHERE id = ${evaluationId}::uuid FOR SHARE`,
    )[0];
    if (!evaluation) throw notFound("evaluation");
    const inserted = rowsOf(
      z.object({ id: z.string(), expires_at: z.date() }),
      await tx.$queryRaw`
        INSERT INTO live_runs (evaluation_id, external_id, task_id, group_id, attempt, started_at, expires_at, timeout_seconds)
        SELECT ${evaluationId}::uuid, ${body.externalId}, ${body.taskId}, ${body.groupId ?? null}, ${body.attempt ?? null}::int,
               coalesce(${body.startedAt ?? null}::timestamptz, now()), now() + ${evaluation.timeout}::int * interval '1 second', ${evaluation.timeout}::int
         WHERE NOT EXISTS (SELECT 1 FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid AND external_id = ${body.externalId})
        ON CONFLICT (evaluation_id, external_id) DO NOTHING
        RETURNING id::text AS id, expires_at`,
    )[0];
    if (inserted) {
      await enqueueExpireLiveRunJob(tx, inserted.id, inserted.expires_at);
      return { externalId: body.externalId, created: true, state: "open" };
    }
    const locked = await lockRun(tx, evaluationId, body.externalId);
    if (!locked)
      return conflict("run_exists", `run ${body.externalId} was ingested into this evaluation already: it is not a live run`, "externalId");
    const existing = locked.due ? await expire(tx, evaluationId, locked) : locked;
    if (existing.state !== "open") return closedConflict(existing);
    if (existing.task_id !== body.taskId)
      return conflict(
        "live_run_conflict",
        `live run ${body.externalId} is open for task ${existing.task_id}, not ${body.taskId}`,
        "taskId",
      );
    return { externalId: body.externalId, created: false, state: "open" };
  });
}

function closedConflict(row: LiveRunRow) {
  return row.state === "expired"
    ? conflict("live_run_expired", `live run ${row.external_id} was ${expiredReason(row)} and is stored unscored`, "externalId")
    : conflict(
        "live_run_scored",
        `live run ${row.external_id} is ${row.state === "scored" ? "scored" : "closed without a score"} already`,
        "externalId",
      );
}

/** The run's row, locked until the transaction ends (every write of one live run is serialised on it); null when there is none. */
async function lockRun(tx: CopyTx, evaluationId: string, externalId: string): Promise<LiveRunRow | null> {
  const rows = rowsOf(
    liveRunRow,
    await tx.$queryRaw`
      SELECT id::text AS id, external_id, task_id, group_id, attempt, started_at, opened_at, state, expires_at, timeout_seconds, scored_at,
             outcome, clock_skew_events, (state = 'open' AND expires_at <= now()) AS due
        FROM live_runs WHERE evaluation_id = ${evaluationId}::uuid AND external_id = ${externalId} FOR UPDATE`,
  );
  return rows[0] ?? null;
}

/** The run's row, locked, with its timeout applied if it is overdue; 404 for an unknown evaluation or run. */
export async function lockOpenedRun(tx: CopyTx, evaluationId: string, externalId: string): Promise<LiveRunRow> {
  const row = await lockRun(tx, evaluationId, externalId);
  if (!row) {
    const evaluation = await tx.$queryRaw`SELECT 1 FROM evaluations WHERE id = ${evaluationId}::uuid`;
    if (rowsOf(z.unknown(), evaluation).length === 0) throw notFound("evaluation");
    throw notFound(`live run ${externalId}`, "externalId");
  }
  return row.due ? expire(tx, evaluationId, row) : row;
}

async function expire(tx: CopyTx, evaluationId: string, row: LiveRunRow): Promise<LiveRunRow> {
  const outcome = { unscoredReason: expiredReason(row) };
  await tx.$executeRaw`
    UPDATE live_runs SET state = 'expired', outcome = ${JSON.stringify(outcome)}::jsonb, closed_at = now() WHERE id = ${row.id}::bigint`;
  const expired = { ...row, state: "expired" as const, outcome, due: false };
  await storeRecord(tx, evaluationId, expired);
  return expired;
}

/** Every event of the run, in time order (ties in arrival order), as its record is made from them. */
async function eventsOf(tx: CopyTx, liveRunId: string): Promise<LiveEvent[]> {
  return rowsOf(
    z.object({ body: liveEventSchema }),
    // A run's events are rows, or its first batch's array not yet moved (first-batch.ts): never both.
    await tx.$queryRaw`
      SELECT body FROM (
        SELECT body, at, id AS k FROM live_run_events WHERE live_run_id = ${liveRunId}::bigint
        UNION ALL
        SELECT e, (e->>'at')::timestamptz, n FROM live_runs, jsonb_array_elements(first_events::jsonb) WITH ORDINALITY AS x(e, n)
         WHERE id = ${liveRunId}::bigint
      ) AS events ORDER BY at, k`,
  ).map((r) => r.body);
}

const outcomeOf = (row: LiveRunRow): LiveOutcome => {
  const outcome = row.outcome!;
  if (outcome.unscoredReason !== undefined || row.scored_at === null) return { unscoredReason: outcome.unscoredReason ?? "not scored" };
  return {
    scoredAtMs: row.scored_at.getTime(),
    endpointLabel: outcome.endpointLabel!,
    score: outcome.score,
    terminalLabel: outcome.terminalLabel,
    threshold: outcome.threshold,
    scoredOn: outcome.scoredOn,
  };
};

/** The closed run's record remade from all its events and stored as an ingested run's (created, updated, or unchanged). */
async function storeRecord(tx: CopyTx, evaluationId: string, row: LiveRunRow): Promise<RunRecord> {
  const record = liveRunRecord(head(row), await eventsOf(tx, row.id), outcomeOf(row));
  await storeBatchIn(tx, evaluationId, [validRun(0, record)], "job");
  return record;
}

/**
 * Admits a request's events (timeline.ts admitEvents) and stores the accepted ones; a run closed
 * already has its record remade with them (later evidence). 404 for an unknown evaluation or run.
 */
export async function recordLiveEvents(
  db: Db,
  evaluationId: string,
  externalId: string,
  items: readonly unknown[],
): Promise<LiveEventsAnswer> {
  return inTransaction(db, async (tx) => recordEventsIn(tx, evaluationId, await lockOpenedRun(tx, evaluationId, externalId), items));
}

/**
 * recordLiveEvents inside the caller's transaction, on a run it has locked (the OTLP receiver's runs sent spans before,
 * which holds statuses of effects not requested yet: admitEvents' options). Held statuses that an effect's request
 * admitted now shows invalid are deleted and answered in `dropped`, whoever sent the request.
 */
export async function recordEventsIn(
  tx: CopyTx,
  evaluationId: string,
  row: LiveRunRow,
  items: readonly unknown[],
  options: AdmissionOptions = {},
): Promise<LiveEventsAnswer> {
  {
    await moveFirstBatch(tx, row.id);
    const ids = items.flatMap((item) => {
      const id = (item as { eventId?: unknown } | null)?.eventId;
      // Only ids PostgreSQL can take are looked up: an unstorable one is refused at admission, naming its field.
      return typeof id === "string" && unstorableTextReason(id) === null ? [id] : [];
    });
    const [effectRows, countRows, reused] = [
      rowsOf(
        z.object({
          type: z.enum(["effect_requested", "effect_status"]),
          event_id: z.string(),
          effect_id: z.string(),
          at: z.date(),
          status: z.string().nullable(),
          arrival: z.number(),
        }),
        await tx.$queryRaw`
          SELECT type, event_id, effect_id, at, body->>'status' AS status, (row_number() OVER (ORDER BY id))::int AS arrival FROM live_run_events
           WHERE live_run_id = ${row.id}::bigint AND type IN ('effect_requested', 'effect_status') ORDER BY at, id`,
      ),
      rowsOf(
        z.object({ type: z.string(), n: countColumn }),
        await tx.$queryRaw`SELECT type, count(*) AS n FROM live_run_events WHERE live_run_id = ${row.id}::bigint GROUP BY type`,
      ),
      rowsOf(
        z.object({ event_id: z.string(), body: z.unknown() }),
        await tx.$queryRaw`SELECT event_id, body FROM live_run_events WHERE live_run_id = ${row.id}::bigint AND event_id = ANY(${ids}::text[])`,
      ),
    ];
    const effects = new Map<string, number>();
    const statuses = new Map<string, StatusPoint[]>();
    const held = new Map<string, (HeldStatus & { arrival: number })[]>();
    for (const r of effectRows) if (r.type === "effect_requested") effects.set(r.effect_id, r.at.getTime());
    for (const r of effectRows) {
      if (r.type === "effect_requested") continue;
      const point = { status: statusOf(r.status), atMs: r.at.getTime() };
      // Pushed, not copied: a run's statuses are read on every request of its events.
      if (effects.has(r.effect_id)) {
        const points = statuses.get(r.effect_id) ?? [];
        points.push(point);
        statuses.set(r.effect_id, points);
      } else {
        const waiting = held.get(r.effect_id) ?? [];
        waiting.push({ ...point, eventId: r.event_id, arrival: r.arrival });
        held.set(r.effect_id, waiting);
      }
    }
    for (const waiting of held.values()) waiting.sort((a, b) => a.arrival - b.arrival);
    const count = (type: string) => countRows.find((c) => c.type === type)?.n ?? 0;
    const admission = admitEvents(
      {
        startedAtMs: row.started_at.getTime(),
        effects,
        statuses,
        counts: {
          effect_requested: count("effect_requested"),
          touch: count("touch"),
          reset: count("reset"),
          model_call: count("model_call"),
        },
        storedById: new Map(reused.map((r) => [r.event_id, canonicalJson(r.body)])),
        held,
      },
      items,
      options,
    );
    const accepted = admission.accepted;
    if (admission.dropped.length > 0)
      await tx.$executeRaw`
        DELETE FROM live_run_events WHERE live_run_id = ${row.id}::bigint AND event_id = ANY(${admission.dropped.map((d) => d.eventId)}::text[])`;
    if (accepted.length > 0) {
      await tx.$executeRaw`
        INSERT INTO live_run_events (live_run_id, event_id, type, at, effect_id, body)
        SELECT ${row.id}::bigint, x.event_id, x.type, x.at, x.effect_id, x.body
          FROM unnest(${accepted.map((a) => a.event.eventId)}::text[], ${accepted.map((a) => a.event.type)}::text[],
                      ${accepted.map((a) => a.event.at)}::timestamptz[], ${accepted.map((a) => ("effectId" in a.event ? a.event.effectId : null))}::text[],
                      ${accepted.map((a) => canonicalJson(a.event))}::jsonb[]) AS x(event_id, type, at, effect_id, body)`;
      await tx.$executeRaw`
        UPDATE live_runs SET clock_skew_events = clock_skew_events + ${admission.flagged.length}::int, last_event_at = now() WHERE id = ${row.id}::bigint`;
      if (row.state !== "open") await storeRecord(tx, evaluationId, row);
    }
    return {
      accepted: accepted.length + admission.duplicates,
      errors: admission.errors,
      duplicates: admission.duplicates,
      flagged: admission.flagged,
      ...(admission.dropped.length > 0 && { dropped: admission.dropped }),
      state: row.state,
    };
  }
}

const statusOf = (status: string | null): StatusAtScoring => z.enum(STATUSES_AT_SCORING).parse(status);

/**
 * Scores the run (or closes it unscored) at `at`, the server's time when absent, and stores its
 * record; answers its finality as the audit has it. The same score sent again answers the same;
 * 409 for a run closed otherwise or stored unscored by its timeout (its expiry stored first).
 */
export async function scoreLiveRun(db: Db, evaluationId: string, externalId: string, body: ScoreLiveRunBody): Promise<ScoreLiveRunAnswer> {
  // What the run's recorders saw up to the score is waited for (bounded); past the bound the answer is never final.
  const awaiting = await awaitRecorders(db, evaluationId, externalId, body.at === undefined ? new Date() : new Date(body.at));
  const score = () =>
    inTransactionRefusingAfterCommit(db, async (tx) => {
      const row = await lockOpenedRun(tx, evaluationId, externalId);
      if (row.state !== "open") {
        if (row.state === "expired" || canonicalJson(row.outcome) !== canonicalJson(body)) return closedConflict(row);
        return finalityOf(tx, evaluationId, externalId);
      }
      await scoreIn(tx, evaluationId, row, body);
      return finalityOf(tx, evaluationId, externalId);
    });
  const answer = await score().catch(async (error: unknown) => {
    // A score may overtake its recorder: the run it names is opened (for the task of its name) and scored, not refused.
    if (!(error instanceof DomainError && error.kind === "not_found" && error.field === "externalId")) throw error;
    await openLiveRun(db, evaluationId, { externalId, taskId: externalId }).catch((refusal: unknown) => {
      if (!(refusal instanceof DomainError && ["live_run_conflict", "live_run_scored", "live_run_expired"].includes(refusal.code)))
        throw refusal;
    });
    return score();
  });
  if (awaiting.length === 0 || answer.finality === "unscored") return answer;
  return { finality: "unresolved", reason: "evidence_arriving", awaiting };
}

const scoredAtRow = z.tuple([z.object({ scored_at: z.date().nullable() })]);

/** Closes an open run the caller has locked with `body` (a score, or unscoredReason) and stores its record. */
export async function scoreIn(tx: CopyTx, evaluationId: string, row: LiveRunRow, body: ScoreLiveRunBody): Promise<void> {
  const state: LiveRunState = body.unscoredReason === undefined ? "scored" : "unscored";
  const [{ scored_at }] = scoredAtRow.parse(
    await tx.$queryRaw`
        UPDATE live_runs SET state = ${state}, outcome = ${canonicalJson(body)}::jsonb, closed_at = now(),
               scored_at = CASE WHEN ${state} = 'scored' THEN coalesce(${body.at ?? null}::timestamptz, now()) END
         WHERE id = ${row.id}::bigint RETURNING scored_at`,
  );
  await storeRecord(tx, evaluationId, { ...row, state, scored_at, outcome: body });
}

async function finalityOf(tx: CopyTx, evaluationId: string, externalId: string): Promise<ScoreLiveRunAnswer> {
  const run = onlyRowOf(
    z.object({
      finality: z.enum(FINALITIES),
      unresolved_reason: z.string().nullable(),
      unresolved_effect_id: z.string().nullable(),
      unresolved_tool: z.string().nullable(),
      unscored_reason: z.string().nullable(),
    }),
    await tx.$queryRaw`
      SELECT finality, unresolved_reason, unresolved_effect_id, unresolved_tool, unscored_reason
        FROM evaluation_runs WHERE evaluation_id = ${evaluationId}::uuid AND external_id = ${externalId}`,
  );
  const reason = run.unresolved_reason ?? run.unscored_reason;
  return {
    finality: run.finality,
    ...(reason !== null && { reason }),
    ...(run.unresolved_effect_id !== null && { effectId: run.unresolved_effect_id }),
    ...(run.unresolved_tool !== null && { tool: run.unresolved_tool }),
  };
}

/** The expiry job's work: stores the run unscored if it is still open and overdue; answers whether it did. */
export async function expireLiveRun(db: Db, liveRunId: string): Promise<boolean> {
  return inTransaction(db, async (tx) => {
    const found = rowsOf(
      z.object({ evaluation_id: z.string(), external_id: z.string() }),
      await tx.$queryRaw`SELECT evaluation_id::text, external_id FROM live_runs WHERE id = ${liveRunId}::bigint`,
    )[0];
    if (!found) return false;
    const row = await lockRun(tx, found.evaluation_id, found.external_id);
    if (!row?.due) return false;
    await expire(tx, found.evaluation_id, row);
    return true;
  });
}

export interface LiveRunView {
  externalId: string;
  taskId: string;
  attempt: number | null;
  state: LiveRunState;
  startedAt: Date;
  openedAt: Date;
  expiresAt: Date;
  timeoutSeconds: number;
  clockSkewEvents: number;
  eventCount: number;
  /** The run as its events make it now: each effect at its latest status, with its resolution when one came. */
  record: RunRecord;
}

/** A live run as it stands (open or closed), for its page and GET route; null when there is none. */
export async function getLiveRun(db: Db, evaluationId: string, externalId: string): Promise<LiveRunView | null> {
  return sqlTransaction(poolOf(db), async (tx) => {
    const row = rowsOf(
      liveRunRow,
      await tx.$queryRaw`
        SELECT id::text AS id, external_id, task_id, group_id, attempt, started_at, opened_at, state, expires_at, timeout_seconds, scored_at,
               outcome, clock_skew_events, false AS due
          FROM live_runs WHERE evaluation_id = ${evaluationId}::uuid AND external_id = ${externalId}`,
    )[0];
    if (!row) return null;
    const events = await eventsOf(tx, row.id);
    return {
      externalId: row.external_id,
      taskId: row.task_id,
      attempt: row.attempt,
      state: row.state,
      startedAt: row.started_at,
      openedAt: row.opened_at,
      expiresAt: row.expires_at,
      timeoutSeconds: row.timeout_seconds,
      clockSkewEvents: row.clock_skew_events,
      eventCount: events.length,
      record: liveRunRecord(head(row), events, row.state === "open" ? { unscoredReason: "open" } : outcomeOf(row)),
    };
  });
}

export interface OpenLiveRuns {
  total: number;
  /** The most recently opened, up to the limit. */
  runs: { externalId: string; taskId: string; openedAt: Date; expiresAt: Date; events: number }[];
}

/** The evaluation's live runs still open (in no figure until scored), newest first. */
export async function openLiveRuns(db: SqlClient, evaluationId: string, limit = 20): Promise<OpenLiveRuns> {
  const rows = rowsOf(
    z.object({
      external_id: z.string(),
      task_id: z.string(),
      opened_at: z.date(),
      expires_at: z.date(),
      events: countColumn,
      total: countColumn,
    }),
    await db.$queryRaw`
      SELECT r.external_id, r.task_id, r.opened_at, r.expires_at, count(*) OVER () AS total,
             (SELECT count(*) FROM live_run_events e WHERE e.live_run_id = r.id) + coalesce(jsonb_array_length(r.first_events::jsonb), 0) AS events
        FROM live_runs r WHERE r.evaluation_id = ${evaluationId}::uuid AND r.state = 'open'
       ORDER BY r.opened_at DESC, r.id DESC LIMIT ${limit}`,
  );
  return {
    total: rows[0]?.total ?? 0,
    runs: rows.map((r) => ({
      externalId: r.external_id,
      taskId: r.task_id,
      openedAt: r.opened_at,
      expiresAt: r.expires_at,
      events: r.events,
    })),
  };
}

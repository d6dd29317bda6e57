// Live runs as they stand, for their pages and GET route: one run with its record made from its
// events so far, and an evaluation's runs still open (in no figure until scored).
import { z } from "zod";
import { poolOf, type Db } from "../../db/prisma";
import { countColumn, rowsOf } from "../../db/rows";
import { sqlTransaction, type SqlClient } from "../../db/sql-transaction";
import type { LiveRunState } from "../live/live-run-schemas";
import { eventsOf, head, liveRunRow, outcomeOf } from "../live/run-record";
import { liveRunRecord } from "../live/timeline";
import type { RunRecord } from "../run-record-schema";

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

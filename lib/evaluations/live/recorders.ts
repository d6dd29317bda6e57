// The recorders of a live run (the MCP recorder: one per process) and what their heartbeats say: until
// when everything each observed has reached Boundary Lab. A score waits, bounded, for the run's live
// recorders to have flushed through its time, so that the evidence recorded before a score is in the
// audit the score answers; the run page flags a recorder that stopped or went silent before the score.
import { z } from "zod";
import type { Db } from "../../db/prisma";
import type { SqlClient } from "../../db/sql-transaction";
import { rowsOf } from "../../db/rows";
import { notFound } from "../../errors";
import type { LiveRunRecorder, RecorderHeartbeatBody } from "./live-run-schemas";

/** How long a score waits at the most for a live recorder to deliver what it saw up to the score's time. */
export const SCORE_WAITS_FOR_RECORDERS_MS = 5_000;
/** A recorder silent for this long is taken to have died: a score no longer waits for it (and the run page says so). */
export const RECORDER_SILENT_AFTER_MS = 10_000;
const WAIT_STEP_MS = 50;

const recorderRow = z.object({
  recorder_id: z.string(),
  kind: z.string(),
  started_at: z.date(),
  last_seen_at: z.date(),
  flushed_through: z.date().nullable(),
  stopped_at: z.date().nullable(),
});
const viewOf = (row: z.infer<typeof recorderRow>): LiveRunRecorder => ({
  recorderId: row.recorder_id,
  kind: row.kind,
  startedAt: row.started_at.toISOString(),
  lastSeenAt: row.last_seen_at.toISOString(),
  flushedThrough: row.flushed_through?.toISOString() ?? null,
  stoppedAt: row.stopped_at?.toISOString() ?? null,
});

/** Records a recorder's heartbeat (the first registers it); 404 for a run that was never opened. */
export async function recorderHeartbeat(
  db: Db,
  evaluationId: string,
  externalId: string,
  recorderId: string,
  body: RecorderHeartbeatBody,
): Promise<LiveRunRecorder> {
  const [row] = rowsOf(
    recorderRow,
    await db.$queryRaw`
      INSERT INTO live_run_recorders AS r (live_run_id, recorder_id, kind, flushed_through, stopped_at)
      SELECT id, ${recorderId}, ${body.kind ?? "recorder"}, ${body.flushedThrough ?? null}::timestamptz, CASE WHEN ${body.stopped === true} THEN now() END
        FROM live_runs WHERE evaluation_id = ${evaluationId}::uuid AND external_id = ${externalId}
      ON CONFLICT (live_run_id, recorder_id) DO UPDATE
         SET last_seen_at = now(),
             flushed_through = greatest(r.flushed_through, EXCLUDED.flushed_through),
             stopped_at = coalesce(r.stopped_at, EXCLUDED.stopped_at)
      RETURNING recorder_id, kind, started_at, last_seen_at, flushed_through, stopped_at`,
  );
  if (!row) throw notFound(`live run ${externalId}`, "externalId");
  return viewOf(row);
}

/** The run's recorders, first registered first. */
export async function liveRunRecorders(db: SqlClient, evaluationId: string, externalId: string): Promise<LiveRunRecorder[]> {
  return rowsOf(
    recorderRow,
    await db.$queryRaw`
      SELECT r.recorder_id, r.kind, r.started_at, r.last_seen_at, r.flushed_through, r.stopped_at
        FROM live_run_recorders r JOIN live_runs l ON l.id = r.live_run_id
       WHERE l.evaluation_id = ${evaluationId}::uuid AND l.external_id = ${externalId} ORDER BY r.started_at, r.recorder_id`,
  ).map(viewOf);
}

/** The run's live recorders (not stopped, heard from lately) that have not said they delivered everything up to `at`. */
async function laggingRecorders(db: Db, evaluationId: string, externalId: string, at: Date): Promise<string[]> {
  return rowsOf(
    z.object({ recorder_id: z.string() }),
    await db.$queryRaw`
      SELECT r.recorder_id FROM live_run_recorders r JOIN live_runs l ON l.id = r.live_run_id
       WHERE l.evaluation_id = ${evaluationId}::uuid AND l.external_id = ${externalId}
         AND r.stopped_at IS NULL AND r.last_seen_at > now() - ${RECORDER_SILENT_AFTER_MS}::int * interval '1 millisecond'
         AND (r.flushed_through IS NULL OR r.flushed_through < ${at})
       ORDER BY r.recorder_id`,
  ).map((r) => r.recorder_id);
}

/**
 * Waits until every live recorder of the run has delivered what it saw up to `at`, or the bound
 * passes: answers the recorders still behind then (none: the evidence up to `at` is all in).
 */
export async function awaitRecorders(db: Db, evaluationId: string, externalId: string, at: Date, boundMs = SCORE_WAITS_FOR_RECORDERS_MS) {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const lagging = await laggingRecorders(db, evaluationId, externalId, at);
    if (lagging.length === 0 || Date.now() >= deadline) return lagging;
    await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
  }
}

export type RecorderFlag = {
  recorderId: string;
  kind: string;
  problem: "stopped_before_score" | "silent_before_score" | "not_flushed_at_score";
};

/**
 * What the run page flags about a scored run's recorders (pure): one that said it stopped before the
 * score, or went silent before it (it died without saying so), may have missed calls made after; one
 * still live that had not delivered what it saw up to the score.
 */
export function recorderFlags(recorders: readonly LiveRunRecorder[], scoredAt: Date | null): RecorderFlag[] {
  if (scoredAt === null) return [];
  const score = scoredAt.getTime();
  return recorders.flatMap((r): RecorderFlag[] => {
    const stopped = r.stoppedAt === null ? null : Date.parse(r.stoppedAt);
    if (stopped !== null && stopped < score) return [{ recorderId: r.recorderId, kind: r.kind, problem: "stopped_before_score" }];
    if (stopped === null && Date.parse(r.lastSeenAt) + RECORDER_SILENT_AFTER_MS < score)
      return [{ recorderId: r.recorderId, kind: r.kind, problem: "silent_before_score" }];
    if (r.flushedThrough === null || Date.parse(r.flushedThrough) < score)
      return [{ recorderId: r.recorderId, kind: r.kind, problem: "not_flushed_at_score" }];
    return [];
  });
}

// Opens a live run (the first of its writes): its row, and the job that expires it when it is not scored in time.
import { z } from "zod";
import type { Db } from "../../db/prisma";
import { rowsOf } from "../../db/rows";
import { conflict, notFound } from "../../errors";
import { expireLiveRunJob } from "./live-run-job";
import type { OpenLiveRunAnswer, OpenLiveRunBody } from "./live-run-schemas";
import { closedConflict, expire, inTransactionRefusingAfterCommit, lockRun } from "./run-lock";

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
      await expireLiveRunJob.enqueue(tx, { liveRunId: inserted.id }, inserted.expires_at);
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

import { getDb } from "@/lib/db/web-process-db";
import { notFound } from "@/lib/errors";
import { getEvaluationRun } from "@/lib/evaluations/read/evaluation-run";
import { runMessages, runMessagesQuerySchema } from "@/lib/evaluations/read/run-messages";
import { evaluationRunPathSchema } from "@/lib/evaluations/evaluation-requests";
import { apiRoute } from "@/lib/http/route/api-route";

export const dynamic = "force-dynamic";

/**
 * One run (its externalId URL-encoded: imported ids hold slashes) with its audit, open-effects
 * records, touches and resets, and a page of its transcript: `messages` ([{role, content,
 * toolCalls?: [{id, tool, arguments}], toolCallId?, position}]) from `messagesFrom` (0), at most
 * `messagesLimit` (200, up to 500), with `messageCount` and `nextMessagesFrom`.
 */
export const GET = apiRoute(
  { permission: "results:read", params: evaluationRunPathSchema, query: runMessagesQuerySchema },
  async ({ params, query }) => {
    const db = getDb();
    const run = await getEvaluationRun(db, params.id, params.externalId);
    if (!run) throw notFound(`run ${params.externalId} of evaluation ${params.id}`);
    const { id, ...rest } = run;
    return Response.json({ ...rest, ...(await runMessages(db, id, query.messagesFrom, query.messagesLimit)) });
  },
);

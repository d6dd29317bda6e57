import { getDb } from "@/lib/db/client";
import { createQueuedExperiment } from "@/lib/experiments/create-experiment";
import { listExperiments } from "@/lib/experiments/list-experiments";
import { createExperimentBodySchema, experimentListQuerySchema } from "@/lib/experiments/schemas";
import { apiRoute } from "@/lib/http/route";
import { replayConfigSchema } from "@/lib/replay/config";
import { resolveTraceSelection } from "@/lib/traces/library";

export const dynamic = "force-dynamic";

/** Experiments newest first, filtered by `state` and a part of the `name`: `{ experiments, nextCursor }`. */
export const GET = apiRoute({ permission: "results:read", query: experimentListQuerySchema }, async ({ query }) => Response.json(await listExperiments(getDb(), query)));

/**
 * Creates an experiment from its config (every field defaults to the paper's grid), with an optional
 * name and notes, and enqueues its units. `traceSelection` ({suite} | {tasks} | {ids}) is resolved
 * against the trace library now, so that the experiment stores exactly the traces it replays.
 */
export const POST = apiRoute({ permission: "experiment:run", body: createExperimentBodySchema }, async ({ principal, body }) => {
  const { name, notes, traceSelection, traces, exclusionRule, ...grid } = body;
  const db = getDb();
  const chosen = traceSelection ? await resolveTraceSelection(db, traceSelection) : traces;
  const config = replayConfigSchema.parse({ ...grid, ...(chosen && { traces: chosen }) });
  const id = await createQueuedExperiment(db, config, principal.userId, { name, notes }, exclusionRule);
  return Response.json({ id }, { status: 201, headers: { location: `/api/v1/experiments/${id}` } });
});

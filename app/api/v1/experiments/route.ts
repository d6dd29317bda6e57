import { getDb } from "@/lib/db/web-process-db";
import { createCanaryExperiment } from "@/lib/experiments/create-canary-experiment";
import { createQueuedExperiment } from "@/lib/experiments/create-experiment";
import { listExperiments } from "@/lib/experiments/list-experiments";
import { createExperimentRequestSchema, experimentListQuerySchema } from "@/lib/experiments/experiment-schemas";
import { apiRoute } from "@/lib/http/route/api-route";
import { replayConfigSchema } from "@/lib/replay/rules/config";
import { resolveTraceSelection } from "@/lib/traces/library";

export const dynamic = "force-dynamic";

/** Experiments newest first, filtered by `state` and a part of the `name`: `{ experiments, nextCursor }`. */
export const GET = apiRoute({ permission: "results:read", query: experimentListQuerySchema }, async ({ query }) =>
  Response.json(await listExperiments(getDb(), query)),
);

/**
 * Creates an experiment of its `kind`: the paper's replay (the default) or the canary reset check
 * (`{"kind": "canary", conditions?, trials?}`).
 * The replay is created from its config (every field defaults to the paper's grid), with an optional
 * name and notes, and enqueues its units. `traceSelection` ({suite} | {tasks} | {ids}) is resolved
 * against the trace library now, so that the experiment stores exactly the traces it replays.
 */
export const POST = apiRoute({ permission: "experiment:run", body: createExperimentRequestSchema }, async ({ principal, body }) => {
  const db = getDb();
  let id: string;
  if (body.kind === "canary") {
    const { kind: _kind, name, notes, ...config } = body;
    id = await createCanaryExperiment(db, config, principal.userId, { name, notes });
  } else {
    const { kind: _kind, name, notes, traceSelection, traces, exclusionRule, ...grid } = body;
    const chosen = traceSelection ? await resolveTraceSelection(db, traceSelection) : traces;
    const config = replayConfigSchema.parse({ ...grid, ...(chosen && { traces: chosen }) });
    id = await createQueuedExperiment(db, config, principal.userId, { name, notes }, exclusionRule);
  }
  return Response.json({ id }, { status: 201, headers: { location: `/api/v1/experiments/${id}` } });
});

import { getDb } from "@/lib/db/client";
import { createQueuedExperiment } from "@/lib/experiments/create-experiment";
import { listExperiments } from "@/lib/experiments/list-experiments";
import { createExperimentBodySchema, experimentListQuerySchema } from "@/lib/experiments/schemas";
import { apiRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** Experiments newest first, filtered by `state` and a part of the `name`: `{ experiments, nextCursor }`. */
export const GET = apiRoute({ permission: "results:read", query: experimentListQuerySchema }, async ({ query }) => Response.json(await listExperiments(getDb(), query)));

/** Creates an experiment from its config (every field defaults to the paper's grid), with an optional name and notes, and enqueues its units. */
export const POST = apiRoute({ permission: "experiment:run", body: createExperimentBodySchema }, async ({ principal, body }) => {
  const { name, notes, ...config } = body;
  const id = await createQueuedExperiment(getDb(), config, principal.userId, { name, notes });
  return Response.json({ id }, { status: 201, headers: { location: `/api/v1/experiments/${id}` } });
});
